// Package dag turns tool-call plans into graphs people can check before
// anything runs.
//
// A plan is a list of tool calls wired through shared state: a call writes
// its result to a state path with "_outputPath" and later calls read it by
// using the whole string "†state.<path>" (U+2020 DAGGER) as an argument
// value. Parse derives the data-flow edges, reports problems as data (an
// invalid plan is still drawn, with its problems highlighted), Simulate does
// a dry run, and Layout computes geometry for the SVG templates.
//
// Generic graphs (ParseGraph) are maps that are not executable; they may
// contain cycles and share the Graph and Layout machinery.
package dag
