"""The README's quick start, in Python, as a Python user writes it: the app the tests synthesize."""
from aws_cdk import App, Duration, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_ecs as ecs
from aws_cdk import aws_lambda as lambda_
from cdk_efs_kit import (
    AccessPointPreset,
    AlarmThreshold,
    EfsMetrics,
    FileSystemAlarmOptions,
    IoKind,
    ProbeCanaryOptions,
    SeedSource,
    SharedFileSystem,
)


def build(app: App, site_dir: str) -> Stack:
    stack = Stack(app, "MyApp")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2, nat_gateways=1)

    files = SharedFileSystem(stack, "Files", vpc=vpc)
    web = files.add_access_point("Web", AccessPointPreset.application_user("/web"))
    jobs = files.add_access_point("Jobs", AccessPointPreset.application_user("/jobs"))

    fn = lambda_.Function(
        stack, "Lister",
        runtime=lambda_.Runtime.PYTHON_3_13,
        handler="index.handler",
        code=lambda_.Code.from_inline("import os\ndef handler(event, context):\n    return os.listdir('/mnt/jobs')\n"),
        vpc=vpc,
    )
    files.mount_on_lambda(fn, jobs, mount_path="/mnt/jobs")

    cluster = ecs.Cluster(stack, "Cluster", vpc=vpc)
    task = ecs.FargateTaskDefinition(stack, "WebTask")
    task.add_container("web", image=ecs.ContainerImage.from_registry("public.ecr.aws/nginx/nginx:stable"))
    service = ecs.FargateService(stack, "WebService", cluster=cluster, task_definition=task)
    files.mount_on_ecs_service(service, web, container_path="/usr/share/nginx/html", read_only=True)

    content = files.add_seed("Content", access_point=web, source=SeedSource.asset(site_dir))
    service.node.add_dependency(content)

    files.add_probe("Probe", canary=ProbeCanaryOptions(interval=Duration.minutes(15)))
    files.add_monitoring("Monitoring", alarms=FileSystemAlarmOptions(
        minimum_client_connections=AlarmThreshold.count(1),
        throughput_utilization=AlarmThreshold.percent(90),
        percent_io_limit=AlarmThreshold.off(),
    ))
    EfsMetrics.throughput_mi_bps(files.file_system_id, IoKind.DATA_WRITE).create_alarm(
        stack, "HeavyWrites", threshold=100, evaluation_periods=15,
    )
    return stack
