// The second Go app of test/package/go.test.ts: an S3 Files file system, an access point and a Lambda
// function mounting it, on the binding jsii-pacmak generates, as the quick start does with SharedFileSystem.
package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdk-efs-kit/cdk-efs-kit-go/cdkefskit"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	stack := awscdk.NewStack(app, jsii.String("S3FilesApp"), nil)
	vpc := awsec2.NewVpc(stack, jsii.String("Vpc"), &awsec2.VpcProps{MaxAzs: jsii.Number(2)})
	files := cdkefskit.NewS3FilesFileSystem(stack, jsii.String("Files"), &cdkefskit.S3FilesFileSystemProps{Vpc: vpc})
	shared := files.AddAccessPoint(jsii.String("Shared"), cdkefskit.AccessPointPreset_ApplicationUser(jsii.String("/shared"), nil))
	reader := awslambda.NewFunction(stack, jsii.String("Reader"), &awslambda.FunctionProps{
		Runtime:    awslambda.Runtime_NODEJS_22_X(),
		Handler:    jsii.String("index.handler"),
		Code:       awslambda.Code_FromInline(jsii.String("exports.handler = async () => 1;")),
		MemorySize: jsii.Number(1024),
		Vpc:        vpc,
	})
	files.MountOnLambda(reader, shared, &cdkefskit.S3FilesMountOnLambdaOptions{MountPath: jsii.String("/mnt/shared")})
	app.Synth(nil)
}
