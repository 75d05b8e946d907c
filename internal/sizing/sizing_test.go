package sizing

import (
	"math"
	"testing"
)

const (
	kib = 1024.0
	tib = kib * kib * kib * kib
	mb  = 1e6
	tb  = 1e12
)

// seedInput is seed 002's example: 10,000 events/s of 2.5 KB kept 7 days
// with replication 3 on 4 brokers.
func seedInput(t *testing.T) Input {
	t.Helper()
	rate, err := ParseRate("10000/s")
	if err != nil {
		t.Fatal(err)
	}
	size, err := ParseSize("2.5KB")
	if err != nil {
		t.Fatal(err)
	}
	ret, err := ParseDuration("7d")
	if err != nil {
		t.Fatal(err)
	}
	return Input{Rate: rate, RecordSize: size, Retention: ret, Replication: 3, Brokers: 4, Consumers: 1}
}

// near reports whether got is within rel (a fraction) of want.
func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// TestComputeSeed002 reproduces the seed's figures. The seed divides by 1,024
// and writes KB and TB, so its TB are TiB; it also rounds 24,414 KiB/s down
// to 24,400, hence the 0.5% tolerance on its figures.
func TestComputeSeed002(t *testing.T) {
	t.Parallel()
	e, err := Compute(seedInput(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  float64
		want float64
		rel  float64
	}{
		// Exact arithmetic, in bytes.
		{"ingest B/s", e.IngestBytesPerSec, 25e6, 0},
		{"replication B/s", e.ReplicationBytesPerSec, 50e6, 0},
		{"one copy B", e.StorageBytes, 15.12e12, 0},
		{"all replicas B", e.ReplicatedBytes, 45.36e12, 0},
		{"per broker B", e.PerBrokerBytes, 11.34e12, 0},
		{"in per broker B/s", e.InPerBrokerBytesPerSec, 18.75e6, 0},
		{"out per broker B/s", e.OutPerBrokerBytesPerSec, 18.75e6, 0},
		// The seed's figures: "24,400 KB/s" (KiB), "around 24MB/s", 13.74 / 41.22 / 10.3 "TB" (TiB).
		{"seed 24,400 KB/s", e.IngestBytesPerSec / kib, 24400, 0.005},
		{"seed about 24 MB/s, as MiB", e.IngestBytesPerSec / (kib * kib), 24, 0.01},
		{"seed about 24 MB/s, as MB", e.IngestBytesPerSec / mb, 24, 0.05},
		{"seed 13.74 TB a week", e.StorageBytes / tib, 13.74, 0.005},
		{"seed 41.22 TB with replication 3", e.ReplicatedBytes / tib, 41.22, 0.005},
		{"seed 10.3 TB per broker", e.PerBrokerBytes / tib, 10.3, 0.005},
		// The same figures in decimal units.
		{"15.12 TB", e.StorageBytes / tb, 15.12, 1e-12},
		{"45.36 TB", e.ReplicatedBytes / tb, 45.36, 1e-12},
		{"11.34 TB", e.PerBrokerBytes / tb, 11.34, 1e-12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if !near(tt.got, tt.want, tt.rel) {
				t.Fatalf("got %v, want %v within %v%%", tt.got, tt.want, tt.rel*100)
			}
		})
	}
	// The seed's own product: 24,400 KB × 604,800 s = 14,757,120,000 KB, read as /1024³.
	if got := 24400.0 * 604800 / (kib * kib * kib); !near(got, 13.74, 0.001) {
		t.Fatalf("seed arithmetic: 14,757,120,000 KB / 1024³ = %v, want 13.74", got)
	}
}

func TestComputeNetworkAndHeadroom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		change      func(*Input)
		in, out     float64 // per broker, B/s
		perBrokerHR float64 // storage per broker with headroom, B
	}{
		{"seed", func(*Input) {}, 18.75e6, 18.75e6, 11.34e12},
		{"3 consumer groups", func(in *Input) { in.Consumers = 3 }, 18.75e6, (50e6 + 75e6) / 4, 11.34e12},
		{"no consumers", func(in *Input) { in.Consumers = 0 }, 18.75e6, 50e6 / 4, 11.34e12},
		{"replication 1", func(in *Input) { in.Replication = 1 }, 25e6 / 4, 25e6 / 4, 15.12e12 / 4},
		{"30% headroom", func(in *Input) { in.Headroom = Headroom{Text: "30%", Fraction: 0.3} }, 18.75e6, 18.75e6, 11.34e12 * 1.3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := seedInput(t)
			tt.change(&in)
			e, err := Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			if !near(e.InPerBrokerBytesPerSec, tt.in, 1e-12) || !near(e.OutPerBrokerBytesPerSec, tt.out, 1e-12) {
				t.Fatalf("in/out per broker = %v/%v, want %v/%v", e.InPerBrokerBytesPerSec, e.OutPerBrokerBytesPerSec, tt.in, tt.out)
			}
			if !near(e.PerBrokerHeadroomBytes, tt.perBrokerHR, 1e-12) {
				t.Fatalf("per broker with headroom = %v, want %v", e.PerBrokerHeadroomBytes, tt.perBrokerHR)
			}
		})
	}
}

func TestComputePartitions(t *testing.T) {
	t.Parallel()
	rate := func(v float64) *PartitionRate { return &PartitionRate{RecordsPerSec: v, From: "test"} }
	tests := []struct {
		name               string
		brokers            int
		producer, consumer *PartitionRate
		want               Partitions
	}{
		{"unmeasured", 4, nil, nil, Partitions{CeilingPerBroker: 1200, MaxForTopic: 1600}},
		// The seed's consumer table: 2,500 msgs/s per partition.
		{"seed consumer 2500/s", 4, nil, rate(2500), Partitions{ForConsumers: 4, Needed: 4, Recommended: 4, ReplicasPerBroker: 3, CeilingPerBroker: 1200, MaxForTopic: 1600}},
		{"producer faster than rate", 4, rate(50000), rate(2500), Partitions{ForProducers: 1, ForConsumers: 4, Needed: 4, Recommended: 4, ReplicasPerBroker: 3, CeilingPerBroker: 1200, MaxForTopic: 1600}},
		{"round up to brokers", 4, rate(2000), rate(3000), Partitions{ForProducers: 5, ForConsumers: 4, Needed: 5, Recommended: 8, ReplicasPerBroker: 6, CeilingPerBroker: 1200, MaxForTopic: 1600}},
		{"6 brokers", 6, nil, rate(2650), Partitions{ForConsumers: 4, Needed: 4, Recommended: 6, ReplicasPerBroker: 3, CeilingPerBroker: 1800, MaxForTopic: 3600}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := seedInput(t)
			in.Brokers = tt.brokers
			in.Measured = Measured{Producer: tt.producer, Consumer: tt.consumer}
			e, err := Compute(in)
			if err != nil {
				t.Fatal(err)
			}
			if e.Partitions != tt.want {
				t.Fatalf("partitions = %+v, want %+v", e.Partitions, tt.want)
			}
		})
	}
}

func TestComputeRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		change  func(*Input)
		wantErr string
	}{
		{"replication over brokers", func(in *Input) { in.Replication = 5 }, "replication 5 is more than 4 brokers: Kafka keeps each replica of a partition on a different broker"},
		{"no brokers", func(in *Input) { in.Brokers = 0 }, "brokers 0: need at least 1 broker"},
		{"no replication", func(in *Input) { in.Replication = 0 }, "replication 0: need at least 1 replica"},
		{"negative consumers", func(in *Input) { in.Consumers = -1 }, "cannot be negative"},
		{"no rate", func(in *Input) { in.Rate = Rate{} }, "rate: missing or 0; write records per second"},
		{"zero partition rate", func(in *Input) { in.Measured.Consumer = &PartitionRate{From: "--partition-consumer-rate 0"} }, "must be more than 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := seedInput(t)
			tt.change(&in)
			_, err := Compute(in)
			checkErr(t, err, tt.wantErr)
		})
	}
}
