// The Go app of test/package/go.test.ts: the Go quick start of docs/quick-start.md, built on the binding jsii-pacmak
// generates (the test adds a replace directive pointing at it) and synthesized with cdk synth --strict.
//
// It requires aws-cdk-go v2.276.0, newer than the binding's floor (v2.269.0, the peer range's lower
// bound): the Go module proxy refuses github.com/cdklabs/cloud-assembly-schema-go/awscdkcloudassemblyschema/v54
// v54.26.0, a dependency of aws-cdk-go v2.269.0, and Go builds with the highest version any module
// requires, so 2.269.0's own dependencies are never fetched. tools/setup.sh downloads every module
// listed here into ~/.cache/cdk-efs-kit/go, and the test builds offline from there.
module quickstart

go 1.26.0

require (
	github.com/aws/aws-cdk-go/awscdk/v2 v2.276.0
	github.com/aws/jsii-runtime-go v1.142.0
	github.com/cdk-efs-kit/cdk-efs-kit-go/cdkefskit v0.1.0
)

require (
	github.com/Masterminds/semver/v3 v3.5.0 // indirect
	github.com/aws/constructs-go/constructs/v10 v10.8.1 // indirect
	github.com/cdklabs/awscdk-asset-awscli-go/awscliv1/v2 v2.2.292 // indirect
	github.com/cdklabs/awscdk-asset-node-proxy-agent-go/nodeproxyagentv6/v2 v2.1.3 // indirect
	github.com/cdklabs/cloud-assembly-schema-go/awscdkcloudassemblyschema/v55 v55.3.0 // indirect
	github.com/fatih/color v1.19.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/yuin/goldmark v1.7.16 // indirect
	golang.org/x/lint v0.0.0-20241112194109-818c5a804067 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/telemetry v0.0.0-20261009151841-97e8ea77aa2a // indirect
	golang.org/x/tools v0.52.0 // indirect
	golang.org/x/tools/cmd/godoc v0.1.0-deprecated // indirect
	golang.org/x/tools/godoc v0.1.0-deprecated // indirect
)
