module github.com/avenir-mcp/avenir

go 1.26

require (
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/oklog/ulid/v2 v2.1.2 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
