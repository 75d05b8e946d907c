// Package study runs a plan: it translates the plan's scenarios into the
// runner's (runner.Scenario, one kind builder per workload type), runs
// every scenario's repeats, with the plan's faults, verification and rate
// searches, and turns what each repeat measured into the result document.
// Learn Run and Repeat first.
//
// The runner runs one scenario and knows no plan; the study is where a
// plan, its results and its faults meet the engines.
package study
