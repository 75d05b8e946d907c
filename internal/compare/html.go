package compare

import (
	"html/template"
	"io"
)

// page is compare.html: one file, inline CSS, no script and nothing
// fetched, so it opens anywhere (a CI artifact, an e-mail). html/template
// escapes every value.
var page = template.Must(template.New("compare.html").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kbench compare</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; }
th { background: #f4f4f4; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.better { color: #fff; background: #2e7d32; }
td.worse { color: #fff; background: #c62828; }
td.noise, td.same, td.missing, td.unjudged { color: #555; background: #e0e0e0; }
p.note { color: #555; max-width: 60em; }
</style>
</head>
<body>
<h1>kbench compare</h1>
<ul><li>A: {{.A}}</li><li>B: {{.B}}</li></ul>
{{if .Rows}}<table>
<tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{index .Cells 0}}</td><td>{{index .Cells 1}}</td><td class="num">{{index .Cells 2}}</td><td class="num">{{index .Cells 3}}</td><td class="num">{{index .Cells 4}}</td><td class="{{.Class}}">{{index .Cells 5}}</td></tr>
{{end}}</table>{{else}}<p>No scenario present in both results to compare.</p>{{end}}
{{with .OnlyA}}<p>Only in A: {{range $i, $n := .}}{{if $i}}, {{end}}{{$n}}{{end}}.</p>{{end}}
{{with .OnlyB}}<p>Only in B: {{range $i, $n := .}}{{if $i}}, {{end}}{{$n}}{{end}}.</p>{{end}}
{{range .Notes}}<p>{{.}}.</p>{{end}}
<p class="note">{{.Explanation}}</p>
</body>
</html>
`))

type htmlRow struct {
	Cells []string
	Class string
}

// WriteHTML writes the comparison as one self-contained HTML page, better
// in green, worse in red, the rest grey: also a verdict taken without a
// spread (fewer than 3 repeats on a side), which only gives a direction.
func WriteHTML(w io.Writer, r *Report) error {
	data := struct {
		*Report
		Columns     []string
		Rows        []htmlRow
		Explanation string
	}{Report: r, Columns: Columns, Explanation: Explanation}
	for _, row := range r.Rows {
		class := verdictClass[row.Verdict]
		if row.Note != "" {
			class = "unjudged"
		}
		data.Rows = append(data.Rows, htmlRow{row.cells(), class})
	}
	return page.Execute(w, data)
}

var verdictClass = map[Verdict]string{
	Better: "better", Worse: "worse", WithinNoise: "noise", Same: "same", OnlyA: "missing", OnlyB: "missing",
}
