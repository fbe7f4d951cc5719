module finance-walk

go 1.22

require (
	github.com/oapi-codegen/runtime v1.1.2
	github.com/standard-webhooks/standard-webhooks/libraries v0.0.1
)

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/google/uuid v1.5.0 // indirect
)
