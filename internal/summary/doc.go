// Package summary turns what the engines measured (workload results) into
// the result document's sections: the producer's and consumer's figures,
// percentiles, steady windows, plateaus and share-group counts. Both faces
// use it: the drop-in tools (compat) and plans (study), so a drop-in does
// not link the study's faults, coordination and reports.
package summary
