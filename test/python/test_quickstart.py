"""The README's Python quick start's template, and the API as Python users call it, with the cdk-efs-kit wheel and aws-cdk-lib from PyPI."""
import json
import os

import pytest
from aws_cdk import App, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_efs as efs
from aws_cdk import aws_s3 as s3
from aws_cdk.assertions import Match, Template
from cdk_efs_kit import (
    AccessPointPreset,
    AlarmThreshold,
    EfsPricing,
    FileSystemAlarmOptions,
    LambdaMountOptions,
    MountOnLambdaOptions,
    MountOptions,
    MountType,
    NfsMountOptions,
    SeedEngine,
    SeedSource,
    SeedSourceConfig,
    SeedSourceFormat,
    SharedFileSystem,
)


# test/package/python.test.ts synthesizes the README's Python quick start with `cdk synth --strict` in an app
# folder (app.py, site/, cdk.out/) and names it in QUICKSTART_APP.
@pytest.fixture(scope="module")
def app_dir():
    app = os.environ.get("QUICKSTART_APP")
    if not app:
        pytest.fail("QUICKSTART_APP is not set: run these tests through test/package/python.test.ts (npx jest test/package/python.test.ts)")
    return app


@pytest.fixture(scope="module")
def synthesized(app_dir):
    outdir = os.path.join(app_dir, "cdk.out")
    with open(os.path.join(outdir, "MyApp.template.json")) as f:
        return Template.from_json(json.load(f)), outdir


def test_the_file_system_is_elastic_and_encrypted(synthesized):
    template, _ = synthesized
    template.has_resource_properties("AWS::EFS::FileSystem", {"ThroughputMode": "elastic", "Encrypted": True})


def test_its_policy_denies_requests_without_tls(synthesized):
    template, _ = synthesized
    template.has_resource_properties("AWS::EFS::FileSystem", {
        "FileSystemPolicy": {"Statement": Match.array_with([Match.object_like({
            "Sid": "DenyWithoutTls", "Effect": "Deny", "Condition": {"Bool": {"aws:SecureTransport": "false"}},
        })])},
    })


def test_the_access_points_use_the_preset(synthesized):
    template, _ = synthesized
    template.has_resource_properties("AWS::EFS::AccessPoint", {
        "PosixUser": {"Uid": "1000", "Gid": "1000"},
        "RootDirectory": {"Path": "/jobs", "CreationInfo": {"OwnerUid": "1000", "OwnerGid": "1000", "Permissions": "750"}},
    })


def test_the_lambda_mount_sizes_the_thread_pool(synthesized):
    template, _ = synthesized
    template.has_resource_properties("AWS::Lambda::Function", {
        "Runtime": "nodejs22.x",
        "FileSystemConfigs": [Match.object_like({"LocalMountPath": "/mnt/jobs"})],
        "Environment": {"Variables": {"UV_THREADPOOL_SIZE": "64"}},
    })


def test_the_ecs_mount_encrypts_in_transit_through_the_access_point(synthesized):
    template, _ = synthesized
    template.has_resource_properties("AWS::ECS::TaskDefinition", {
        "Volumes": [Match.object_like({"EFSVolumeConfiguration": Match.object_like({
            "TransitEncryption": "ENABLED", "AuthorizationConfig": Match.object_like({"IAM": "ENABLED"}),
        })})],
    })


def test_the_service_keeps_its_tasks_through_deploys(synthesized):
    template, _ = synthesized
    template.has_resource_properties("AWS::ECS::Service", {"DeploymentConfiguration": Match.object_like({
        "MinimumHealthyPercent": 100, "DeploymentCircuitBreaker": {"Enable": True, "Rollback": True},
    })})


def test_the_seed_copies_the_local_directory_as_an_asset(synthesized):
    template, outdir = synthesized
    seeds = template.find_resources("Custom::CdkEfsKitSeed")
    assert len(seeds) == 1
    properties = next(iter(seeds.values()))["Properties"]
    assert properties["Format"] == "zip"
    asset_hash = properties["Fingerprint"]
    assert properties["Key"] == f"{asset_hash}.zip"
    with open(os.path.join(outdir, "MyApp.assets.json")) as f:
        files = json.load(f)["files"]
    staged = os.path.join(outdir, files[asset_hash]["source"]["path"])
    assert os.listdir(staged) == ["index.html"]


def test_the_probe_runs_a_canary(synthesized):
    template, _ = synthesized
    template.has_resource_properties("AWS::Events::Rule", {"ScheduleExpression": "rate(15 minutes)"})


def test_alarms_follow_their_thresholds_one_is_off(synthesized):
    template, _ = synthesized
    alarms = template.find_resources("AWS::CloudWatch::Alarm")
    descriptions = [a["Properties"].get("AlarmDescription", "") for a in alarms.values()]
    assert any(d.startswith("Permitted throughput used >= 90%") for d in descriptions)
    assert any(d.startswith("Fewer than 1 client connections") for d in descriptions)
    assert not any(d.startswith("PercentIOLimit") for d in descriptions)


def test_a_custom_alarm_on_the_metric_math(synthesized):
    template, _ = synthesized
    template.has_resource_properties("AWS::CloudWatch::Alarm", {
        "Threshold": 100,
        "EvaluationPeriods": 15,
        "Metrics": Match.array_with([Match.object_like({"Expression": "(datawrite_bytes/1048576)/PERIOD(datawrite_bytes)"})]),
    })


def test_type_checks_work_on_python_objects():
    stack = Stack(App(), "Checks")
    files = SharedFileSystem(stack, "Files", vpc=ec2.Vpc(stack, "Vpc", max_azs=2))
    assert SharedFileSystem.is_shared_file_system(files)
    assert not SharedFileSystem.is_shared_file_system(stack)


def test_a_source_written_in_python_binds_in_the_seed():
    class ReleaseArchive(SeedSource):
        def __init__(self, bucket):
            super().__init__()
            self.bucket = bucket

        def bind(self, scope):
            return SeedSourceConfig(bucket=self.bucket, key="releases/current.zip", format=SeedSourceFormat.ZIP, fingerprint="release-7")

    stack = Stack(App(), "Custom")
    files = SharedFileSystem(stack, "Files", vpc=ec2.Vpc(stack, "Vpc", max_azs=2))
    web = files.add_access_point("Web", AccessPointPreset.application_user("/web"))
    files.add_seed("Content", access_point=web, source=ReleaseArchive(s3.Bucket(stack, "Releases")))
    Template.from_stack(stack).has_resource_properties("Custom::CdkEfsKitSeed", {"Key": "releases/current.zip", "Fingerprint": "release-7"})


def test_options_an_engine_cannot_honour_fail_with_their_name():
    stack = Stack(App(), "Refused")
    files = SharedFileSystem(stack, "Files", vpc=ec2.Vpc(stack, "Vpc", max_azs=2))
    web = files.add_access_point("Web", AccessPointPreset.application_user("/web"))
    with pytest.raises(Exception, match=r"prune is not supported by SeedEngine.distributedMap\(\)"):
        files.add_seed("Bulk", access_point=web, source=SeedSource.s3(s3.Bucket(stack, "Lake"), "data/"),
                       engine=SeedEngine.distributed_map(), prune=True)


def test_nfs_mount_options_and_their_former_name():
    line = NfsMountOptions.recommended_nfs().to_fstab_line("fs-1.efs.us-east-1.amazonaws.com:/", "/mnt/efs", MountType.NFS4)
    assert line.startswith("fs-1.efs.us-east-1.amazonaws.com:/ /mnt/efs nfs4 nfsvers=4.1,")
    # The deprecated name still works, and makes the same options.
    assert MountOptions.recommended_nfs().to_string() == NfsMountOptions.recommended_nfs().to_string()
    assert MountOptions(["tls"]).to_string() == "tls"
    with pytest.raises(Exception, match=r"NfsMountOptions: 'noac' is advised against"):
        NfsMountOptions.recommended_nfs().with_overrides("noac")


def test_a_helpers_options_have_the_helpers_name_and_keep_the_former_one():
    # Python passes them as keywords (mount_on_lambda(fn, ap, mount_path=...)); the struct is there for type hints.
    assert MountOnLambdaOptions(mount_path="/mnt/jobs").mount_path == "/mnt/jobs"
    assert LambdaMountOptions(mount_path="/mnt/jobs").mount_path == "/mnt/jobs"


def test_a_threshold_in_the_wrong_unit_fails_with_the_prop_name():
    stack = Stack(App(), "WrongUnit")
    files = SharedFileSystem(stack, "Files", vpc=ec2.Vpc(stack, "Vpc", max_azs=2))
    with pytest.raises(Exception, match=r"alarms.throughputUtilization takes AlarmThreshold.percent"):
        files.add_monitoring("Monitoring", alarms=FileSystemAlarmOptions(throughput_utilization=AlarmThreshold.count(3)))


def test_spend_alarms_a_daily_budget_and_an_anomaly_band():
    stack = Stack(App(), "Spend")
    files = SharedFileSystem(stack, "Files", vpc=ec2.Vpc(stack, "Vpc", max_azs=2))
    monitoring = files.add_monitoring("Monitoring", pricing=EfsPricing.US_EAST_1, alarms=FileSystemAlarmOptions(
        daily_spend_limit=AlarmThreshold.usd(20),
        data_access_anomaly=AlarmThreshold.standard_deviations(4),
    ))
    assert {"dailySpend", "dataAccessAnomaly"} <= set(monitoring.alarms.keys())
    assert monitoring.spend_alarm is not None
    template = Template.from_stack(stack)
    template.has_resource_properties("AWS::CloudWatch::Alarm", {"Threshold": 20, "ComparisonOperator": "GreaterThanThreshold"})
    template.has_resource_properties("AWS::CloudWatch::Alarm", {
        "ComparisonOperator": "GreaterThanUpperThreshold",
        "Metrics": Match.array_with([Match.object_like({"Expression": "ANOMALY_DETECTION_BAND(m0, 4)"})]),
    })


def test_an_anomaly_band_on_bursting_fails_with_the_prop_name():
    stack = Stack(App(), "NoAnomaly")
    files = SharedFileSystem(stack, "Files", vpc=ec2.Vpc(stack, "Vpc", max_azs=2), throughput_mode=efs.ThroughputMode.BURSTING)
    with pytest.raises(Exception, match=r"alarms.dataAccessAnomaly applies to throughputMode ELASTIC only"):
        files.add_monitoring("Monitoring", alarms=FileSystemAlarmOptions(data_access_anomaly=AlarmThreshold.standard_deviations(3)))


def test_an_existing_file_system_imported_by_id_gets_the_helpers():
    stack = Stack(App(), "Existing")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2)
    legacy = SharedFileSystem.from_file_system_attributes(
        stack, "Legacy",
        file_system_id="fs-0123456789abcdef0",
        vpc=vpc,
        security_group=ec2.SecurityGroup.from_security_group_id(stack, "LegacySg", "sg-0123456789abcdef0"),
        throughput_mode=efs.ThroughputMode.BURSTING,
        one_zone=False,
    )
    site = legacy.add_access_point("Site", AccessPointPreset.application_user("/site"))
    legacy.add_seed("Content", access_point=site, source=SeedSource.s3(s3.Bucket(stack, "Sources"), "site/"))
    legacy.add_probe("Probe")
    legacy.add_monitoring("Monitoring")
    template = Template.from_stack(stack)
    template.has_resource_properties("AWS::EFS::AccessPoint", {"FileSystemId": "fs-0123456789abcdef0"})
    template.has_resource_properties("Custom::CdkEfsKitSeed", {"FileSystemId": "fs-0123456789abcdef0"})
    template.has_resource_properties("Custom::CdkEfsKitMountTargetsReady", {"FileSystemId": "fs-0123456789abcdef0", "MountTargets": Match.absent()})
    assert not SharedFileSystem.is_shared_file_system(legacy)


def test_monitoring_an_import_without_its_throughput_mode_fails_naming_it():
    stack = Stack(App(), "Unknown")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2)
    legacy = SharedFileSystem.from_file_system_attributes(
        stack, "Legacy", file_system_id="fs-0123456789abcdef0", vpc=vpc,
        security_group=ec2.SecurityGroup.from_security_group_id(stack, "LegacySg", "sg-0123456789abcdef0"),
    )
    with pytest.raises(Exception, match=r"monitoring an imported file system needs throughputMode and oneZone"):
        legacy.add_monitoring("Monitoring")


def test_an_efs_file_system_of_the_app_wrapped():
    stack = Stack(App(), "Wrapped")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2)
    plain = efs.FileSystem(stack, "Plain", vpc=vpc, encrypted=True)
    files = SharedFileSystem.from_file_system(stack, "PlainHelpers", plain, vpc=vpc)
    assert files.add_monitoring("Monitoring").throughput_mode == efs.ThroughputMode.BURSTING
