package sizing

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// unitBytes gives the size of each unit a Size may be written in, for the
// "(KB = 1,000 B)" note next to the record size.
var unitBytes = map[string]string{
	"KB": "1,000 B", "MB": "1,000² B", "GB": "1,000³ B", "TB": "1,000⁴ B", "PB": "1,000⁵ B",
	"KiB": "1,024 B", "MiB": "1,024² B", "GiB": "1,024³ B", "TiB": "1,024⁴ B", "PiB": "1,024⁵ B",
}

// printer writes labelled lines and keeps the first write error, so that the
// report reads as a list of lines rather than a list of error checks.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// line writes "  label   text"; an empty label continues the line above.
func (p *printer) line(label, format string, args ...any) {
	p.printf("  %-17s %s\n", label, fmt.Sprintf(format, args...))
}

// WriteText prints e as a plain-text report in which every figure shows the
// arithmetic that produced it.
func WriteText(w io.Writer, e *Estimate) error {
	p := &printer{w: w}
	in := e.Input
	p.printf("kbench size: %s rec/s × %s B, kept %s, replication %d on %s\n",
		num(in.Rate.PerSec), num(in.RecordSize.Bytes), in.Retention.Text, in.Replication, brokers(in))
	writeInputs(p, e)
	writeThroughput(p, e)
	writeStorage(p, e)
	writeNetwork(p, e)
	writeCores(p, e)
	writePartitions(p, e)
	writeUnits(p, e)
	p.printf("\nNot counted: compression (it divides storage and network), record and batch headers,\n" +
		"index files, segments kept past retention until they roll, and other topics.\n")
	return p.err
}

func writeInputs(p *printer, e *Estimate) {
	in := e.Input
	p.printf("\nInputs\n")
	p.line("rate", "%s = %s rec/s", in.Rate.Text, num(in.Rate.PerSec))
	size := fmt.Sprintf("%s = %s B", in.RecordSize.Text, num(in.RecordSize.Bytes))
	if u, ok := unitBytes[in.RecordSize.Unit]; ok {
		size += fmt.Sprintf(" (1 %s = %s)", in.RecordSize.Unit, u)
	}
	p.line("record size", "%s", size)
	p.line("retention", "%s = %s s", in.Retention.Text, num(in.Retention.Seconds))
	groups := plural(in.Consumers, "consumer group", "consumer groups")
	headroom := "no storage headroom"
	if in.Headroom.Fraction > 0 {
		headroom = fmt.Sprintf("%s storage headroom", pct(in.Headroom.Fraction))
	}
	p.line("cluster", "replication %d on %s, %s, %s", in.Replication, brokers(in), groups, headroom)
}

func writeThroughput(p *printer, e *Estimate) {
	in := e.Input
	p.printf("\nThroughput\n")
	p.line("ingest", "= %s rec/s × %s B = %s",
		num(in.Rate.PerSec), num(in.RecordSize.Bytes), exact(e.IngestBytesPerSec, 1, "/s"))
	p.line("replication", "= ingest × (%d - 1) = %s B/s × %d = %s",
		in.Replication, num(e.IngestBytesPerSec), in.Replication-1, exact(e.ReplicationBytesPerSec, 1, "/s"))
	p.line("", "(followers fetching from leaders, across the cluster)")
}

func writeStorage(p *printer, e *Estimate) {
	in := e.Input
	p.printf("\nStorage\n")
	p.line("one copy", "= %s B/s × %s s = %s",
		num(e.IngestBytesPerSec), num(in.Retention.Seconds), exact(e.StorageBytes, 2, ""))
	p.line("all replicas", "= %s B × %d = %s",
		num(e.StorageBytes), in.Replication, exact(e.ReplicatedBytes, 2, ""))
	p.line("per broker", "= %s B / %s = %s",
		num(e.ReplicatedBytes), brokers(in), exact(e.PerBrokerBytes, 2, ""))
	if h := in.Headroom.Fraction; h > 0 {
		factor := strconv.FormatFloat(1+h, 'f', -1, 64) // all its digits: 12.5% is × 1.125
		p.line("all + "+pct(h), "= %s B × %s = %s",
			num(e.ReplicatedBytes), factor, exact(e.ReplicatedHeadroomBytes, 2, ""))
		p.line("per broker + "+pct(h), "= %s B × %s = %s",
			num(e.PerBrokerBytes), factor, exact(e.PerBrokerHeadroomBytes, 2, ""))
	}
}

func writeNetwork(p *printer, e *Estimate) {
	in := e.Input
	p.printf("\nNetwork per broker\n")
	p.line("in", "= (ingest + replication) / %s = (%s + %s) B/s / %d",
		brokers(in), num(e.IngestBytesPerSec), num(e.ReplicationBytesPerSec), in.Brokers)
	p.line("", "= %s = %s", exact(e.InPerBrokerBytesPerSec, 1, "/s"), bits(e.InPerBrokerBytesPerSec))
	p.line("out", "= (replication + %d × ingest) / %s = (%s + %d × %s) B/s / %d",
		in.Consumers, brokers(in), num(e.ReplicationBytesPerSec), in.Consumers, num(e.IngestBytesPerSec), in.Brokers)
	p.line("", "= %s = %s", exact(e.OutPerBrokerBytesPerSec, 1, "/s"), bits(e.OutPerBrokerBytesPerSec))
	p.line("", "(%s; a group reads every record once)", plural(in.Consumers, "consumer group", "consumer groups"))
}

func writeUnits(p *printer, e *Estimate) {
	// misread prints a binary figure the way a 1,024-based hand calculation
	// labels it: 13.75 TiB as 13.75 "TB".
	misread := func(bytes float64, per string) string {
		b := scaled(bytes, 1024, binaryUnits, 2)
		v, unit, _ := strings.Cut(b, " ")
		return fmt.Sprintf("%s \"%s%s\"", v, strings.Replace(unit, "iB", "B", 1), per)
	}
	p.printf("\nUnits\n")
	p.line("kbench", "counts bytes exactly and prints decimal units (1 KB = 1,000 B, 1 MB = 1,000² B, 1 TB = 1,000⁴ B)")
	p.line("", "with the binary reading in parentheses (1 KiB = 1,024 B, 1 MiB = 1,024² B, 1 TiB = 1,024⁴ B),")
	p.line("", "the reading df -h and cloud volumes sized in GiB use.")
	p.line("KB or KiB?", "a hand calculation that divides by 1,024 but writes KB and TB gets, for these inputs:")
	p.line("", "ingest %s B/s / 1,024 = %s \"KB/s\"; storage %s one copy, %s all replicas,",
		num(e.IngestBytesPerSec), num(math.Round(e.IngestBytesPerSec/1024)), misread(e.StorageBytes, ""), misread(e.ReplicatedBytes, ""))
	p.line("", "%s per broker. Those are the binary (KiB, TiB) figures above, not the decimal ones.", misread(e.PerBrokerBytes, ""))
	p.line("an MSK study", "(docs/size.md) does exactly that: 10,000 × 2,500 = \"24,400 KB/s\" is 24,414 KiB/s rounded down, so")
	p.line("", "24,400 × 604,800 s = 14,757,120,000 \"KB\" / 1,024³ = 13.74 \"TB\" is TiB (13.75 unrounded), and its")
	p.line("", "\"around 24 MB/s\" is 24,414 KiB/s / 1,000, between 25.0 MB/s and 23.8 MiB/s.")
}

// exact formats bytes exactly, then in units when they say more:
// "25,000,000 B/s = 25.0 MB/s (23.8 MiB/s)", but "0 B/s".
func exact(bytes float64, prec int, per string) string {
	s := num(bytes) + " B" + per
	if bytes >= 1000 {
		s += " = " + both(bytes, prec, per)
	}
	return s
}

func brokers(in Input) string { return plural(in.Brokers, "broker", "brokers") }

// pct formats a fraction as a percentage: 0.3 → "30%".
func pct(f float64) string { return num(f*100) + "%" }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(float64(n)) + " " + many
}
