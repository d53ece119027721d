package statement

// This file stands in for the CSV parser, which is written on another branch, so that this
// branch builds and its tests run; the merge replaces it with csv.go.

// parseCSV is the CSV parser's entry point.
func parseCSV(_ []byte, _ CSVOptions) ([]Statement, error) {
	return nil, &Error{Msg: "CSV is not supported yet"}
}

// looksCSV says whether text that is none of the other formats reads as a CSV.
func looksCSV(_ []byte) bool { return true }
