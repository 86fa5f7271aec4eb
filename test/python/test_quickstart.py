"""The README's Python quick start's template, and the API as Python users call it, with the cdk-efs-kit wheel and aws-cdk-lib from PyPI."""
import json
import os

import pytest
from aws_cdk import App, Duration, Environment, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_efs as efs
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
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
    S3FilesFileSystem,
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
    with pytest.raises(Exception, match=r"alarms.throughputUtilization \(alarms.throughput_utilization\) takes AlarmThreshold.percent"):
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
    with pytest.raises(Exception, match=r"alarms.dataAccessAnomaly \(alarms.data_access_anomaly\) applies to throughputMode \(throughput_mode\) ELASTIC only"):
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
    with pytest.raises(Exception, match=r"monitoring an imported file system needs throughputMode \(throughput_mode\) \(the widgets"):
        legacy.add_monitoring("Monitoring")


def test_an_efs_file_system_of_the_app_wrapped():
    stack = Stack(App(), "Wrapped")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2)
    plain = efs.FileSystem(stack, "Plain", vpc=vpc, encrypted=True)
    files = SharedFileSystem.from_file_system(stack, "PlainHelpers", plain, vpc=vpc)
    assert files.add_monitoring("Monitoring").throughput_mode == efs.ThroughputMode.BURSTING


# Replication as aws-efs's users write it, from Python: efs.ReplicationConfiguration's factories on
# SharedFileSystem's props, asserted on the synthesized template as test/lib/file-system/replication.test.ts does.
SOURCE_ACCOUNT = "111111111111"
DESTINATION_ACCOUNT = "222222222222"
REPLICA_ID = "fs-0123456789abcdef0"
REPLICA_ARN = f"arn:aws:elasticfilesystem:us-west-2:{DESTINATION_ACCOUNT}:file-system/{REPLICA_ID}"
DESTINATION_ACTIONS = [
    "elasticfilesystem:DescribeFileSystems", "elasticfilesystem:CreateReplicationConfiguration",
    "elasticfilesystem:DescribeReplicationConfigurations", "elasticfilesystem:DeleteReplicationConfiguration",
    "elasticfilesystem:ReplicationWrite",
]


def source_stack(name):
    stack = Stack(App(), name, env=Environment(account=SOURCE_ACCOUNT, region="us-east-1"))
    return stack, ec2.Vpc(stack, "Vpc", max_azs=2, nat_gateways=1)


def file_system_properties(stack, prefix="Files"):
    found = [r["Properties"] for logical_id, r in Template.from_stack(stack).find_resources("AWS::EFS::FileSystem").items() if logical_id.startswith(prefix)]
    assert len(found) == 1
    return found[0]


def imported_by_arn(stack, arn):
    return efs.FileSystem.from_file_system_attributes(
        stack, "Replica", file_system_arn=arn,
        security_group=ec2.SecurityGroup.from_security_group_id(stack, "ReplicaSg", "sg-0123456789abcdef0"))


def test_replication_regional_in_the_stacks_region_and_in_another_with_a_key():
    stack, vpc = source_stack("Regional")
    SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.regional_file_system())
    assert file_system_properties(stack)["ReplicationConfiguration"] == {"Destinations": [{"Region": "us-east-1"}]}

    stack, vpc = source_stack("RegionalKey")
    key = kms.Key(stack, "Key")
    SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.regional_file_system("eu-west-1", key))
    assert file_system_properties(stack)["ReplicationConfiguration"] == {
        "Destinations": [{"Region": "eu-west-1", "KmsKeyId": stack.resolve(key.key_arn)}],
    }


def test_replication_to_a_new_one_zone_file_system_in_the_zone_given():
    stack, vpc = source_stack("OneZone")
    SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.one_zone_file_system("us-west-2", "us-west-2b"))
    assert file_system_properties(stack)["ReplicationConfiguration"] == {"Destinations": [{"Region": "us-west-2", "AvailabilityZoneName": "us-west-2b"}]}


def test_replication_to_a_one_zone_file_system_in_a_zone_of_another_region_fails_naming_it():
    stack, vpc = source_stack("WrongZone")
    with pytest.raises(Exception, match=r"replicationConfiguration: availabilityZone \(availability_zone\) must be a zone of the destination Region us-west-2, got \"eu-west-1a\""):
        SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.one_zone_file_system("us-west-2", "eu-west-1a"))


def test_replication_to_an_existing_file_system_of_the_app_without_overwrite_protection():
    stack, vpc = source_stack("Existing")
    replica = SharedFileSystem(stack, "Replica", vpc=vpc, replication_overwrite_protection=efs.ReplicationOverwriteProtection.DISABLED)
    files = SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.existing_file_system(replica))
    assert file_system_properties(stack)["ReplicationConfiguration"] == {
        "Destinations": [{"FileSystemId": stack.resolve(replica.file_system_id), "Region": "us-east-1"}],
    }
    assert stack.resolve(files.replication_destination_file_system_id) == stack.resolve(replica.file_system_id)
    assert file_system_properties(stack, "Replica")["FileSystemProtection"] == {"ReplicationOverwriteProtection": "DISABLED"}
    assert "FileSystemProtection" not in file_system_properties(stack)


def test_replication_into_a_file_system_that_keeps_its_overwrite_protection_fails_naming_it():
    stack, vpc = source_stack("Protected")
    replica = SharedFileSystem(stack, "Replica", vpc=vpc)
    with pytest.raises(Exception, match=r"the destination file system Protected/Replica must have replicationOverwriteProtection \(replication_overwrite_protection\) DISABLED .*got ENABLED"):
        SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.existing_file_system(replica))


def test_a_file_system_that_replicates_cannot_give_up_its_overwrite_protection():
    stack, vpc = source_stack("Both")
    with pytest.raises(Exception, match=r"replicationOverwriteProtection \(replication_overwrite_protection\) DISABLED makes a file system a replication destination"):
        SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.regional_file_system(),
                         replication_overwrite_protection=efs.ReplicationOverwriteProtection.DISABLED)


def test_replication_across_accounts_the_role_efs_assumes_and_the_sources_policy():
    stack, vpc = source_stack("CrossAccount")
    SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.existing_file_system(imported_by_arn(stack, REPLICA_ARN)))
    template = Template.from_stack(stack)
    roles = template.find_resources("AWS::IAM::Role")
    assert len(roles) == 1
    role_id, role = next(iter(roles.items()))
    properties = file_system_properties(stack)
    # Across accounts EFS takes the destination by its ARN, with the role.
    assert properties["ReplicationConfiguration"] == {
        "Destinations": [{"FileSystemId": REPLICA_ARN, "Region": "us-west-2", "RoleArn": {"Fn::GetAtt": [role_id, "Arn"]}}],
    }
    assert role["Properties"]["AssumeRolePolicyDocument"]["Statement"] == [
        {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "elasticfilesystem.amazonaws.com"}},
    ]
    statements = role["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    assert statements[0] == {"Effect": "Allow", "Action": DESTINATION_ACTIONS, "Resource": REPLICA_ARN}
    assert statements[1]["Action"] == ["elasticfilesystem:ReplicationRead", "elasticfilesystem:DescribeFileSystems"]
    assert f":elasticfilesystem:us-east-1:{SOURCE_ACCOUNT}:file-system/*" in json.dumps(statements[1]["Resource"])
    # The destination account may end the replication; the TLS deny stays first.
    policy = properties["FileSystemPolicy"]["Statement"]
    assert [s.get("Sid") for s in policy] == ["DenyWithoutTls", "AllowDestinationAccountToDeleteReplication"]
    assert policy[1]["Action"] == "elasticfilesystem:DeleteReplicationConfiguration"
    assert f":iam::{DESTINATION_ACCOUNT}:root" in json.dumps(policy[1]["Principal"])


def test_replication_across_accounts_the_destinations_policy():
    stack = Stack(App(), "Destination", env=Environment(account=DESTINATION_ACCOUNT, region="us-west-2"))
    replica = SharedFileSystem(stack, "Files", vpc=ec2.Vpc(stack, "Vpc", max_azs=2),
                               replication_overwrite_protection=efs.ReplicationOverwriteProtection.DISABLED)
    replica.accept_replication_from(SOURCE_ACCOUNT)
    policy = file_system_properties(stack)["FileSystemPolicy"]["Statement"]
    assert policy[1]["Sid"] == f"AllowReplicationFrom{SOURCE_ACCOUNT}"
    assert policy[1]["Action"] == DESTINATION_ACTIONS
    assert f":iam::{SOURCE_ACCOUNT}:root" in json.dumps(policy[1]["Principal"])
    with pytest.raises(Exception, match=r"acceptReplicationFrom: sourceAccount \(source_account\) must be a 12-digit AWS account id, got \"prod\""):
        replica.accept_replication_from("prod")


def test_the_replication_lag_alarm_on_both_dimensions_in_the_composite():
    stack, vpc = source_stack("Lag")
    replica = efs.FileSystem.from_file_system_attributes(
        stack, "Replica", file_system_id=REPLICA_ID,
        security_group=ec2.SecurityGroup.from_security_group_id(stack, "ReplicaSg", "sg-0123456789abcdef0"))
    files = SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.existing_file_system(replica))
    monitoring = files.add_monitoring("Monitoring", alarms=FileSystemAlarmOptions(replication_lag=AlarmThreshold.duration(Duration.minutes(30))))
    assert "replicationLag" in monitoring.alarms
    template = Template.from_stack(stack)
    template.has_resource_properties("AWS::CloudWatch::Alarm", {
        "Namespace": "AWS/EFS", "MetricName": "TimeSinceLastSync", "Statistic": "Maximum", "Period": 300, "Threshold": 1800,
        "Dimensions": [{"Name": "DestinationFileSystemId", "Value": REPLICA_ID}, {"Name": "FileSystemId", "Value": stack.resolve(files.file_system_id)}],
    })
    lag_id = next(i for i in template.find_resources("AWS::CloudWatch::Alarm") if i.startswith("FilesMonitoringReplicationLag"))
    composite = next(iter(template.find_resources("AWS::CloudWatch::CompositeAlarm").values()))
    assert lag_id in json.dumps(composite["Properties"]["AlarmRule"])


def test_the_replication_lag_alarm_of_a_new_destination_queries_this_source():
    stack, vpc = source_stack("NewLag")
    files = SharedFileSystem(stack, "Files", vpc=vpc, replication_configuration=efs.ReplicationConfiguration.regional_file_system("us-west-2"))
    files.add_monitoring("Monitoring")
    lags = [a["Properties"] for i, a in Template.from_stack(stack).find_resources("AWS::CloudWatch::Alarm").items() if i.startswith("FilesMonitoringReplicationLag")]
    assert len(lags) == 1
    assert lags[0]["Threshold"] == 3600  # the default: an hour
    assert 'SELECT MAX(TimeSinceLastSync) FROM SCHEMA(\\"AWS/EFS\\", DestinationFileSystemId, FileSystemId)' in json.dumps(lags[0]["Metrics"])


def test_a_replication_lag_alarm_without_replication_fails_naming_it():
    stack, vpc = source_stack("NoReplication")
    files = SharedFileSystem(stack, "Files", vpc=vpc)
    with pytest.raises(Exception, match=r"alarms.replicationLag \(alarms.replication_lag\) applies to a replicating file system only"):
        files.add_monitoring("Monitoring", alarms=FileSystemAlarmOptions(replication_lag=AlarmThreshold.duration(Duration.hours(2))))


def test_an_s3_files_file_system_mounts_on_a_lambda_function_through_an_access_point():
    stack = Stack(App(), "S3Files")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2)
    files = S3FilesFileSystem(stack, "Files", vpc=vpc)
    shared = files.add_access_point("Shared", AccessPointPreset.application_user("/shared"))
    fn = lambda_.Function(
        stack, "Reader",
        runtime=lambda_.Runtime.NODEJS_22_X,
        handler="index.handler",
        code=lambda_.Code.from_inline("exports.handler = async () => 1;"),
        memory_size=1024,
        vpc=vpc,
    )
    files.mount_on_lambda(fn, shared, mount_path="/mnt/shared")
    template = Template.from_stack(stack)
    template.resource_count_is("AWS::S3Files::MountTarget", 2)
    template.has_resource_properties("AWS::S3Files::AccessPoint", {"PosixUser": {"Uid": "1000", "Gid": "1000"}})
    template.has_resource_properties("AWS::Lambda::Function", {
        "FileSystemConfigs": [Match.object_like({"LocalMountPath": "/mnt/shared", "S3FilesConfig": Match.any_value()})],
    })
    # The function waits for the readiness gate, which resolves the mount targets' S3 Files names.
    template.has_resource_properties("Custom::CdkEfsKitMountTargetsReady", {"FileSystemKind": "S3_FILES"})
