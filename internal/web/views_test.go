package web

import "github.com/plandash/plandash/internal/views"

// overviewPageSize is how many sessions a page of the overview shows (package views decides),
// which the overview's tests count against.
const overviewPageSize = views.OverviewPageSize
