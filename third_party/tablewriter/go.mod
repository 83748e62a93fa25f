module github.com/olekukonko/tablewriter

go 1.21

require (
	github.com/clipperhouse/displaywidth v0.10.0
	github.com/clipperhouse/uax29/v2 v2.6.0
)
