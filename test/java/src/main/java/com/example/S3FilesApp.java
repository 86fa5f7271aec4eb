package com.example;

import io.github.cdkefskit.AccessPointPreset;
import io.github.cdkefskit.S3FilesAccessPoint;
import io.github.cdkefskit.S3FilesFileSystem;
import io.github.cdkefskit.S3FilesMountOnLambdaOptions;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.s3.Bucket;

/**
 * The second Java app, as test/go/s3files is the second Go one: an S3 Files file system on a
 * versioned bucket, an access point and a Lambda function mounting it. test/package/java.test.ts
 * compiles it against the binding (it does not run it: see test/java/pom.xml).
 */
public final class S3FilesApp {
    public static void main(final String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "S3FilesApp");
        Vpc vpc = Vpc.Builder.create(stack, "Vpc").maxAzs(2).build();

        // S3 Files serves only a versioned bucket.
        Bucket bucket = Bucket.Builder.create(stack, "Data").versioned(true).build();
        S3FilesFileSystem files = S3FilesFileSystem.Builder.create(stack, "Files").vpc(vpc).bucket(bucket).build();
        S3FilesAccessPoint shared = files.addAccessPoint("Shared", AccessPointPreset.applicationUser("/shared"));

        Function reader = Function.Builder.create(stack, "Reader")
                .runtime(Runtime.NODEJS_22_X)
                .handler("index.handler")
                .code(Code.fromInline("exports.handler = async () => require('fs').readdirSync('/mnt/shared');"))
                .memorySize(1024)
                .vpc(vpc)
                .build();
        files.mountOnLambda(reader, shared, S3FilesMountOnLambdaOptions.builder().mountPath("/mnt/shared").build());
        app.synth();
    }
}
