import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cw_actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/** A composite alarm in ALARM when any of `alarms` is, telling `topic` of ALARM and OK (none when `alarms` is empty). */
export function anyOfAlarms(scope: Construct, id: string, description: string, alarms: cloudwatch.Alarm[], topic?: sns.ITopic): cloudwatch.CompositeAlarm | undefined {
  if (alarms.length === 0) return undefined;
  const composite = new cloudwatch.CompositeAlarm(scope, id, { alarmDescription: description, alarmRule: cloudwatch.AlarmRule.anyOf(...alarms) });
  if (topic) {
    composite.addAlarmAction(new cw_actions.SnsAction(topic));
    composite.addOkAction(new cw_actions.SnsAction(topic));
  }
  return composite;
}
