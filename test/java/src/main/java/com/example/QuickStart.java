package com.example;

import io.github.cdkefskit.AccessPointPreset;
import io.github.cdkefskit.AlarmThreshold;
import io.github.cdkefskit.EfsMetrics;
import io.github.cdkefskit.FileSystemAlarmOptions;
import io.github.cdkefskit.IoKind;
import io.github.cdkefskit.MonitoringOptions;
import io.github.cdkefskit.MountOnEcsOptions;
import io.github.cdkefskit.MountOnLambdaOptions;
import io.github.cdkefskit.ProbeCanaryOptions;
import io.github.cdkefskit.ProbeOptions;
import io.github.cdkefskit.SeedOptions;
import io.github.cdkefskit.SeedSource;
import io.github.cdkefskit.SharedFileSystem;
import java.util.List;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.cloudwatch.CreateAlarmOptions;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.ecs.Cluster;
import software.amazon.awscdk.services.ecs.ContainerDefinitionOptions;
import software.amazon.awscdk.services.ecs.ContainerImage;
import software.amazon.awscdk.services.ecs.DeploymentCircuitBreaker;
import software.amazon.awscdk.services.ecs.FargateService;
import software.amazon.awscdk.services.ecs.FargateTaskDefinition;
import software.amazon.awscdk.services.ecs.PortMapping;
import software.amazon.awscdk.services.efs.AccessPoint;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;

/** The quick start in Java (docs/quick-start.md links here); test/package/java.test.ts compiles it against the binding (it does not run it: see test/java/pom.xml). */
public final class QuickStart {
    public static void main(final String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "MyApp");
        Vpc vpc = Vpc.Builder.create(stack, "Vpc").maxAzs(2).natGateways(1).build();

        // An encrypted, TLS-only file system with Elastic throughput and backups, and two access points.
        SharedFileSystem files = SharedFileSystem.Builder.create(stack, "Files").vpc(vpc).build();
        AccessPoint web = files.addAccessPoint("Web", AccessPointPreset.applicationUser("/web"));
        AccessPoint jobs = files.addAccessPoint("Jobs", AccessPointPreset.applicationUser("/jobs"));

        // A Lambda function that mounts /jobs.
        Function fn = Function.Builder.create(stack, "Lister")
                .runtime(Runtime.NODEJS_22_X)
                .handler("index.handler")
                .code(Code.fromInline("exports.handler = async () => require('fs').readdirSync('/mnt/jobs');"))
                .vpc(vpc)
                .build();
        files.mountOnLambda(fn, jobs, MountOnLambdaOptions.builder().mountPath("/mnt/jobs").build());

        // An nginx service on Fargate that serves /web, read-only.
        Cluster cluster = Cluster.Builder.create(stack, "Cluster").vpc(vpc).build();
        FargateTaskDefinition task = new FargateTaskDefinition(stack, "WebTask");
        task.addContainer("web", ContainerDefinitionOptions.builder()
                .image(ContainerImage.fromRegistry("public.ecr.aws/nginx/nginx:stable"))
                .portMappings(List.of(PortMapping.builder().containerPort(80).build()))
                .build());
        FargateService service = FargateService.Builder.create(stack, "WebService")
                .cluster(cluster).taskDefinition(task).minHealthyPercent(100)
                .circuitBreaker(DeploymentCircuitBreaker.builder().rollback(true).build())
                .build();
        files.mountOnEcsService(service, web, MountOnEcsOptions.builder().containerPath("/usr/share/nginx/html").readOnly(true).build());

        // Copy ./site onto /web at deploy time: the service, which mounts /web, starts once it is there.
        files.addSeed("Content", SeedOptions.builder().accessPoint(web).source(SeedSource.asset("site")).build());

        // Latency as applications feel it every 15 minutes, a dashboard, and alarms.
        files.addProbe("Probe", ProbeOptions.builder().canary(ProbeCanaryOptions.builder().interval(Duration.minutes(15)).build()).build());
        files.addMonitoring("Monitoring", MonitoringOptions.builder()
                .alarms(FileSystemAlarmOptions.builder()
                        .minimumClientConnections(AlarmThreshold.count(1)) // off by default
                        .throughputUtilization(AlarmThreshold.percent(90)) // 80 by default
                        .percentIoLimit(AlarmThreshold.off())
                        .build())
                .build());
        // An alarm of your own on AWS's metric math: writes above 100 MiB/s for 15 minutes.
        EfsMetrics.throughputMiBps(files.getFileSystemId(), IoKind.DATA_WRITE)
                .createAlarm(stack, "HeavyWrites", CreateAlarmOptions.builder().threshold(100).evaluationPeriods(15).build());
        app.synth();
    }
}
