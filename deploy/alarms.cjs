/**
 * CloudWatch alarms of an AWS stage, all notifying one SNS topic (subscribe your e-mail or pager to it;
 * ALARM_EMAIL at deploy time adds an e-mail subscription):
 * - messages in either dead-letter queue (a job exhausted its deliveries);
 * - errors and throttles of every function (one pair of alarms per function, generated from serverless.yml);
 * - failed jobs (the JobsFailed metric the job runner writes in EMF, lib/shared/metrics.ts).
 * serverless-offline ignores it.
 */
module.exports = async ({ resolveConfigurationProperty, resolveVariable }) => {
  const stage = await resolveVariable('sls:stage');
  const functions = (await resolveConfigurationProperty(['functions'])) ?? {};
  const names = Object.keys(functions).filter((name) => functions[name]);
  const logicalId = (name) =>
    `${name[0].toUpperCase()}${name.slice(1).replace(/-/g, 'Dash').replace(/_/g, 'Underscore')}`;
  const notify = { AlarmActions: [{ Ref: 'AlarmTopic' }], OKActions: [{ Ref: 'AlarmTopic' }] };
  const Resources = {
    AlarmTopic: {
      Type: 'AWS::SNS::Topic',
      Properties: { TopicName: `anomaly-monitor-${stage}-alarms`, KmsMasterKeyId: 'alias/aws/sns' },
    },
    AlarmEmailSubscription: {
      Type: 'AWS::SNS::Subscription',
      Condition: 'HasAlarmEmail',
      Properties: {
        TopicArn: { Ref: 'AlarmTopic' },
        Protocol: 'email',
        Endpoint: process.env.ALARM_EMAIL ?? '',
      },
    },
  };
  for (const [id, queue] of [
    ['LoadDeadLetterQueue', 'load'],
    ['ProcessDeadLetterQueue', 'process'],
    ['ReplayDeadLetterQueue', 'replay'],
  ]) {
    Resources[`${id}DepthAlarm`] = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmDescription: `anomaly-monitor ${stage}: a ${queue} job exhausted its deliveries (dead-letter queue not empty)`,
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [id, 'QueueName'] } }],
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        ...notify,
      },
    };
  }
  for (const name of names) {
    const fn = { Ref: `${logicalId(name)}LambdaFunction` };
    for (const metric of ['Errors', 'Throttles']) {
      Resources[`${logicalId(name)}${metric}Alarm`] = {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: {
          AlarmDescription: `anomaly-monitor ${stage}: ${name} ${metric.toLowerCase()}`,
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: fn }],
          Statistic: 'Sum',
          Period: 300,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
          ...notify,
        },
      };
    }
  }
  Resources.FailedJobsAlarm = {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmDescription: `anomaly-monitor ${stage}: jobs failed (GET /api/v1/monitoring lists them)`,
      Namespace: 'AnomalyMonitor',
      MetricName: 'JobsFailed',
      Dimensions: [{ Name: 'service', Value: 'anomaly-monitor' }],
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      ...notify,
    },
  };
  return {
    Conditions: {
      HasAlarmEmail: { 'Fn::Not': [{ 'Fn::Equals': [process.env.ALARM_EMAIL ?? '', ''] }] },
    },
    Resources,
    Outputs: { AlarmTopicArn: { Value: { Ref: 'AlarmTopic' } } },
  };
};
