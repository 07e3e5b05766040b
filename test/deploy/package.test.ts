/**
 * The AWS package: `serverless package --stage ci` runs without credentials, and its CloudFormation
 * template has the queues, dead-letter queues, schedules, permissions and runtimes of docs/deploy.md.
 * It packages once (about a minute and a half on two cores); SKIP_PACKAGE_TEST=1 skips it. It does not
 * touch a database, so the PostgreSQL pass of CI (DATABASE_URL set) skips it too.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config/config';
import { UI_CSP } from '../../lib/http/security-headers';
import { JOB_KINDS } from '../../lib/jobs/types';
import { queueOf } from '../../lib/queue/port';
import {
  type FunctionArtifact,
  type Json,
  type Packaged,
  packageStage,
  refTarget,
  renderedEnvironment,
  resourcesOf,
  root,
  shellSentinels,
  statementsOf,
} from './support';

const skipReason =
  process.env.SKIP_PACKAGE_TEST === '1'
    ? 'SKIP_PACKAGE_TEST=1'
    : process.env.DATABASE_URL
      ? 'DATABASE_URL is set: the package test uses no database and runs in the PGlite pass'
      : undefined;
if (skipReason) console.info(`test/deploy/package.test.ts skipped: ${skipReason}`);

const STAGE = 'ci';
const MiB = 1048576;
const mib = (n: number) => (n / MiB).toFixed(2);
const unzippedBytes = (a: FunctionArtifact) => [...a.files.values()].reduce((s, b) => s + b.length, 0);
/**
 * The functions that open source databases (serverless.yml custom.sourceFunctions). `system` builds the
 * OpenAPI document from every route table and the process and dead-letter workers carry the whole list of
 * workers (the load job's code with it), but none of them opens a source on AWS:
 * deploy/esbuild-plugins.cjs gives them stubs instead of drivers.
 */
const SOURCE_FUNCTIONS = ['connectors', 'connectorTests', 'dataviews', 'loadWorker'];
/** The functions that run jobs (functions/workers/*): the only bundles with the job workers' code. */
const WORKER_FUNCTIONS = ['loadWorker', 'processWorker', 'replayWorker', 'deadLetters'];
/** The job workers' code (lib/app/workers.ts and what only the workers import). */
const WORKER_CODE = [
  'lib/app/workers.ts',
  'lib/app/after-cycle.ts',
  'lib/jobs/worker.ts',
  'lib/pipeline/load-job.ts',
];
const SOURCE_DRIVERS = ['mssql', 'tedious', 'oracledb', 'snowflake-sdk'];
/**
 * Unzipped size budgets: Lambda reads the whole bundle at a cold start. `noJobs`: every function that
 * neither opens sources nor runs jobs (HTTP, schedules, migrate; 1.9–2.6 MiB when set); `plain`: the
 * worker functions without drivers and `system`'s code (2.8 and 3.6 MiB when set).
 */
const BUDGET = {
  noJobs: 3 * MiB,
  /**
   * The detection function (detector preview, series charts) computes a series' public holidays: the
   * holiday library (date-holidays with its rules for every country, about 1.5 MiB bundled) rides along.
   */
  holidays: 4.5 * MiB,
  plain: 5 * MiB,
  withDrivers: 24 * MiB,
  zippedWithDrivers: 6 * MiB,
  renderer: 2.5 * MiB,
};
/** The API reference renderer's static files beside the system bundle (served, not loaded at a cold start). */
const isRendererFile = (f: string) => f.startsWith('node_modules/swagger-ui-dist/');
const jobQueues = [...new Set(JOB_KINDS.map(queueOf))];

describe.skipIf(skipReason)('the AWS package of a stage', () => {
  let pkg: Packaged;
  let resources: Json;
  let functions: Array<[string, Json]>;
  let mappings: Json[];

  const queueNamed = (name: string): [string, Json] => {
    const found = resourcesOf(pkg.template, 'AWS::SQS::Queue').find(
      ([, q]) => q.Properties.QueueName === `anomaly-monitor-${STAGE}-${name}`,
    );
    if (!found) throw new Error(`no SQS queue anomaly-monitor-${STAGE}-${name}`);
    return found;
  };
  const functionOf = (mapping: Json): Json => resources[refTarget(mapping.FunctionName) as string];
  /** `LoadWorkerLambdaFunction` → `loadWorker` (the name in serverless.yml and of its zip). */
  const functionName = (id: string) => {
    const base = id.replace(/LambdaFunction$/, '');
    return [...pkg.artifacts.keys()].find((n) => n.toLowerCase() === base.toLowerCase()) ?? base;
  };
  const roleOf = (fn: Json): string => refTarget(fn.Properties.Role) as string;

  beforeAll(async () => {
    pkg = await packageStage(STAGE);
    resources = pkg.template.Resources;
    functions = resourcesOf(pkg.template, 'AWS::Lambda::Function');
    mappings = resourcesOf(pkg.template, 'AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
    const lines = [...pkg.artifacts].map(
      ([name, a]) =>
        `  ${name.padEnd(16)} ${mib(a.zipBytes).padStart(5)} MiB zipped ${mib(unzippedBytes(a)).padStart(6)} MiB unzipped`,
    );
    console.info(
      `packaged ${functions.length} functions in ${pkg.seconds.toFixed(0)} s\n${lines.join('\n')}`,
    );
  }, 900_000);
  afterAll(() => {
    if (pkg) rmSync(pkg.dir, { recursive: true, force: true });
  });

  it('runs every function on nodejs22.x from a bundle inside its own artifact', () => {
    expect(functions.length).toBeGreaterThan(10);
    for (const [id, fn] of functions) {
      expect(fn.Properties.Runtime, id).toBe('nodejs22.x');
      const name = functionName(id);
      const zip = fn.Properties.Code.S3Key as string;
      expect(zip.endsWith(`/${name}.zip`), `${id}: ${zip}`).toBe(true);
      const bundle = `${fn.Properties.Handler.replace(/\.[^.]+$/, '')}.mjs`;
      expect(pkg.artifacts.get(name)?.files.has(bundle), `${id}: ${bundle}`).toBe(true);
    }
  });

  it('keeps every function within its size budget', () => {
    expect(pkg.artifacts.size).toBe(functions.length);
    for (const [name, a] of pkg.artifacts) {
      const renderer = [...a.files].filter(([f]) => isRendererFile(f)).reduce((n, [, b]) => n + b.length, 0);
      expect(renderer, `${name}: ${mib(renderer)} MiB of reference page files`).toBeLessThan(BUDGET.renderer);
      const size = unzippedBytes(a) - renderer;
      if (SOURCE_FUNCTIONS.includes(name)) {
        expect(size, `${name}: ${mib(size)} MiB unzipped`).toBeLessThan(BUDGET.withDrivers);
        expect(a.zipBytes, `${name}: ${mib(a.zipBytes)} MiB zipped`).toBeLessThan(BUDGET.zippedWithDrivers);
      } else if (WORKER_FUNCTIONS.includes(name) || name === 'system') {
        expect(size, `${name}: ${mib(size)} MiB unzipped`).toBeLessThan(BUDGET.plain);
      } else if (name === 'detection') {
        expect(size, `${name}: ${mib(size)} MiB unzipped`).toBeLessThan(BUDGET.holidays);
      } else {
        expect(size, `${name}: ${mib(size)} MiB unzipped`).toBeLessThan(BUDGET.noJobs);
      }
    }
    for (const name of ['health', 'anomalies']) {
      const size = unzippedBytes(pkg.artifacts.get(name) as FunctionArtifact);
      expect(size, `${name}: ${mib(size)} MiB unzipped`).toBeLessThan(BUDGET.noJobs);
    }
    // system: its code within the plain budget too, beside the renderer's files.
    const system = pkg.artifacts.get('system') as FunctionArtifact;
    const code = [...system.files].filter(([f]) => !isRendererFile(f)).reduce((n, [, b]) => n + b.length, 0);
    expect(code, `system: ${mib(code)} MiB without the renderer`).toBeLessThan(BUDGET.plain);
  });

  it('bundles the source drivers only into the functions that reach sources, built for node22', () => {
    const yml = readFileSync(path.join(root, 'serverless.yml'), 'utf8');
    expect(yml).toMatch(/^ {4}target: node22$/m);
    expect(yml).toMatch(new RegExp(`^ {2}sourceFunctions: \\[${SOURCE_FUNCTIONS.join(', ')}\\]$`, 'm'));
    for (const [name, a] of pkg.artifacts) {
      // What a bundle holds, by the source map's file list (the minified code names no files).
      const sources: string[] = [...a.files]
        .filter(([f]) => f.endsWith('.mjs.map'))
        .flatMap(([, b]) => JSON.parse(b.toString('utf8')).sources as string[]);
      expect(sources.length, name).toBeGreaterThan(0);
      const drivers = SOURCE_DRIVERS.filter((d) => sources.some((f) => f.includes(`node_modules/${d}/`)));
      expect(drivers, name).toEqual(SOURCE_FUNCTIONS.includes(name) ? SOURCE_DRIVERS : []);
      // system reads the connector code with the route tables: a stub stands in for each driver.
      if (name === 'system')
        expect(
          [...a.files].some(
            ([f, b]) => f.endsWith('.mjs') && b.includes('is not packaged with this function'),
          ),
        ).toBe(true);
      // The UI is not in any function on AWS (S3 + CloudFront serve it).
      expect(
        [...a.files.keys()].filter((f) => f.startsWith('web/')),
        name,
      ).toEqual([]);
    }
  });

  it('bundles the job workers only into the worker functions (no container of another function carries them)', () => {
    for (const [name, a] of pkg.artifacts) {
      const sources: string[] = [...a.files]
        .filter(([f]) => f.endsWith('.mjs.map'))
        .flatMap(([, b]) => JSON.parse(b.toString('utf8')).sources as string[]);
      const workers = WORKER_CODE.filter((w) => sources.some((f) => f.endsWith(w)));
      expect(workers, name).toEqual(WORKER_FUNCTIONS.includes(name) ? WORKER_CODE : []);
    }
  });

  it('gives each job queue its own dead-letter queue, reached after as many receives as the runner attempts', () => {
    const deadLetterQueues = new Set<string>();
    for (const name of jobQueues) {
      const [queueId, queue] = queueNamed(name);
      const redrive = queue.Properties.RedrivePolicy;
      const dlqId = refTarget(redrive.deadLetterTargetArn) as string;
      expect(resources[dlqId].Type).toBe('AWS::SQS::Queue');
      expect(resources[dlqId].Properties.RedrivePolicy).toBeUndefined();
      deadLetterQueues.add(dlqId);
      const worker = functionOf(mappings.find((m) => refTarget(m.EventSourceArn) === queueId) ?? {});
      expect(Number(redrive.maxReceiveCount)).toBe(
        Number(worker.Properties.Environment.Variables.JOB_MAX_ATTEMPTS),
      );
    }
    expect(deadLetterQueues.size).toBe(jobQueues.length);
  });

  it('delivers each job queue to its worker one message at a time, with partial batch responses', () => {
    for (const name of jobQueues) {
      const [queueId, queue] = queueNamed(name);
      const own = mappings.filter((m) => refTarget(m.EventSourceArn) === queueId);
      expect(own, name).toHaveLength(1);
      expect(own[0].BatchSize).toBe(1);
      expect(own[0].FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      // AWS advises a visibility timeout of at least six times the function's timeout.
      expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(
        6 * functionOf(own[0]).Properties.Timeout,
      );
    }
  });

  it('drains every dead-letter queue into the dead-letter worker', () => {
    for (const name of jobQueues) {
      const dlqId = refTarget(queueNamed(name)[1].Properties.RedrivePolicy.deadLetterTargetArn) as string;
      const own = mappings.filter((m) => refTarget(m.EventSourceArn) === dlqId);
      expect(own, dlqId).toHaveLength(1);
      expect(refTarget(own[0].FunctionName)).toBe('DeadLettersLambdaFunction');
      expect(own[0].FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      const timeout = functionOf(own[0]).Properties.Timeout;
      expect(resources[dlqId].Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
    }
  });

  it('schedules cron loads every minute and connector tests every few hours', () => {
    const scheduleOf = (fnId: string) =>
      resourcesOf(pkg.template, 'AWS::Events::Rule')
        .filter(([, r]) => r.Properties.Targets.some((t: Json) => refTarget(t.Arn) === fnId))
        .map(([, r]) => r.Properties.ScheduleExpression);
    expect(scheduleOf('CronLoadsLambdaFunction')).toEqual(['rate(1 minute)']);
    const [connectorTests] = scheduleOf('ConnectorTestsLambdaFunction');
    expect(connectorTests).toMatch(/^rate\(\d+ hours\)$/);
    expect(Number(/\d+/.exec(connectorTests)?.[0])).toBeGreaterThanOrEqual(2);
  });

  it("limits every secrets permission to the service's own name prefix", () => {
    const prefix = renderedEnvironment(functions[0][1]).SECRETS_PREFIX;
    expect(prefix).toBe(`anomaly-monitor/${STAGE}/secrets/`);
    let granted = 0;
    // The proxy's own role (it logs in to the database) is checked with the proxy.
    for (const [id, role] of resourcesOf(pkg.template, 'AWS::IAM::Role').filter(
      ([i]) => i !== 'DatabaseProxyRole',
    )) {
      for (const s of statementsOf(role).filter((s) =>
        s.Action.some((a) => a.startsWith('secretsmanager:')),
      )) {
        granted++;
        expect(
          s.Action.filter((a) => a.includes('*')),
          id,
        ).toEqual([]);
        for (const resource of s.Resource) {
          expect(resource, id).not.toBe('*');
          const runtime =
            refTarget(resource) === 'JwtSecret' ||
            refTarget(resource) === 'OriginVerifySecret' ||
            String((resource as Json)['Fn::Sub']).endsWith(
              `:secret:anomaly-monitor/${STAGE}/database-??????`,
            );
          // The runtime secrets are only read; everything else stays under the connector prefix.
          if (runtime) expect(s.Action, id).toEqual(['secretsmanager:GetSecretValue']);
          else expect((resource as Json)['Fn::Sub'], id).toMatch(new RegExp(`:secret:${prefix}\\*$`));
        }
      }
    }
    expect(granted).toBeGreaterThanOrEqual(3);
  });

  it('grants no wildcard resource except the network interface rights of a VPC and X-Ray tracing', () => {
    for (const [id, role] of resourcesOf(pkg.template, 'AWS::IAM::Role')) {
      for (const s of statementsOf(role).filter((s) => s.Resource.includes('*'))) {
        expect(
          s.Action.filter(
            (a) => !a.startsWith('ec2:') && !/^xray:Put(TraceSegments|TelemetryRecords)$/.test(a),
          ),
          id,
        ).toEqual([]);
      }
    }
  });

  it('lets each function receive only from the queues that trigger it', () => {
    for (const [roleId, role] of resourcesOf(pkg.template, 'AWS::IAM::Role')) {
      const granted = statementsOf(role)
        .filter((s) => s.Action.includes('sqs:ReceiveMessage'))
        .flatMap((s) => s.Resource.map(refTarget));
      const triggering = mappings
        .filter((m) => roleOf(functionOf(m)) === roleId)
        .map((m) => refTarget(m.EventSourceArn));
      expect(new Set(granted), roleId).toEqual(new Set(triggering));
    }
  });

  it('lets the functions that send alerts and regenerate summaries read, not write, the service secrets', () => {
    const prefix = `:secret:anomaly-monitor/${STAGE}/secrets/*`;
    // processWorker: immediate alerts and summaries after detection; cronLoads: digests and retried deliveries.
    for (const id of ['ProcessWorkerLambdaFunction', 'CronLoadsLambdaFunction']) {
      const own = statementsOf(resources[roleOf(resources[id])]).filter((s) =>
        s.Resource.some((r) => String((r as Json)['Fn::Sub'] ?? '').endsWith(prefix)),
      );
      expect(
        own.flatMap((s) => s.Action),
        id,
      ).toEqual(['secretsmanager:GetSecretValue']);
    }
  });

  it('gives the functions of a VPC stage a security group with only the outbound rules they need', () => {
    const group = resources.FunctionsSecurityGroup;
    expect(group.Type).toBe('AWS::EC2::SecurityGroup');
    expect(group.Condition).toBe('OwnSecurityGroup');
    expect(group.Properties.SecurityGroupIngress).toBeUndefined();
    const rules = group.Properties.SecurityGroupEgress as Json[];
    expect(rules.every((r) => r.IpProtocol === 'tcp' && r.FromPort === r.ToPort)).toBe(true);
    const open = rules.filter((r) => r.CidrIp === '0.0.0.0/0').map((r) => r.FromPort);
    // HTTPS (AWS APIs via NAT, webhooks, Slack, language model), SMTP for e-mail alerts, source databases.
    expect(open.sort()).toEqual([1433, 1521, 443, 465, 5432, 587]);
    const database = rules.filter((r) => r.DestinationSecurityGroupId !== undefined);
    expect(database.map((r) => r.FromPort)).toEqual([5432]);
    const ingress = resources.DatabaseIngressFromFunctions;
    expect(ingress.Condition).toBe('OwnSecurityGroup');
    expect(refTarget(ingress.Properties.SourceSecurityGroupId)).toBe('FunctionsSecurityGroup');
    expect(ingress.Properties.GroupId).toBe(database[0].DestinationSecurityGroupId);
  });

  it('gives the migrate task a role that only writes logs and reads the database credentials', () => {
    for (const id of ['MigrateLambdaFunction']) {
      const actions = statementsOf(resources[roleOf(resources[id])]).flatMap((s) =>
        s.Action.filter((a) => !a.startsWith('ec2:')),
      );
      expect(new Set(actions), id).toEqual(
        new Set([
          'logs:CreateLogStream',
          'logs:PutLogEvents',
          'xray:PutTraceSegments',
          'xray:PutTelemetryRecords',
          'secretsmanager:GetSecretValue',
        ]),
      );
    }
  });

  it('reads the database credentials and the token secret at run time, never from the environment or the shell', () => {
    for (const [id, fn] of functions) {
      const vars = fn.Properties.Environment.Variables;
      expect(vars.DATABASE_URL, id).toBe('');
      expect(vars.JWT_SECRET, id).toBe('');
      expect(vars.DATABASE_SECRET_ID, id).toBe(`anomaly-monitor/${STAGE}/database`);
      const role = statementsOf(resources[roleOf(fn)]).filter((s) =>
        s.Action.includes('secretsmanager:GetSecretValue'),
      );
      const readable = role.flatMap((s) => s.Resource);
      expect(
        readable.some((r) =>
          String((r as Json)['Fn::Sub']).endsWith(`:secret:anomaly-monitor/${STAGE}/database-??????`),
        ),
        id,
      ).toBe(true);
      // The token secret only for the HTTP functions, which check tokens; the others cannot read it.
      const checksTokens = roleOf(fn) === 'ApiRole';
      expect(vars.JWT_SECRET_ID === '' ? undefined : refTarget(vars.JWT_SECRET_ID), id).toBe(
        checksTokens ? 'JwtSecret' : undefined,
      );
      expect(
        readable.some((r) => refTarget(r) === 'JwtSecret'),
        id,
      ).toBe(checksTokens);
      // The distribution's origin secret likewise: ORIGIN_VERIFY_SECRET_ID for the HTTP functions only.
      expect(
        vars.ORIGIN_VERIFY_SECRET_ID === '' ? undefined : refTarget(vars.ORIGIN_VERIFY_SECRET_ID),
        id,
      ).toBe(checksTokens ? 'OriginVerifySecret' : undefined);
      expect(
        readable.some((r) => refTarget(r) === 'OriginVerifySecret'),
        id,
      ).toBe(checksTokens);
    }
    // The one value resolved at deploy time: the origin-verify header CloudFront sends to the API (it
    // lives in the distribution's configuration, never in a function's environment).
    const api = resources.WebDistribution.Properties.DistributionConfig.Origins.find(
      (o: Json) => o.Id === 'api',
    );
    expect(api.OriginCustomHeaders).toEqual([
      {
        HeaderName: 'X-Origin-Verify',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax, not JavaScript's
        HeaderValue: { 'Fn::Sub': '{{resolve:secretsmanager:${OriginVerifySecret}:SecretString}}' },
      },
    ]);
    const apiBehaviour = resources.WebDistribution.Properties.DistributionConfig.CacheBehaviors.find(
      (b: Json) => b.PathPattern === '/api/*',
    );
    expect(apiBehaviour.FunctionAssociations[0].FunctionARN).toEqual({
      'Fn::GetAtt': ['ApiViewerAddress', 'FunctionARN'],
    });
    expect(resources.ApiViewerAddress.Properties.FunctionCode).toContain(
      "headers['x-viewer-address'] = { value: event.viewer.ip }",
    );
    const { WebDistribution: _distribution, ...others } = resources;
    const text = JSON.stringify({ ...pkg.template, Resources: others });
    expect(text).not.toContain('{{resolve:');
    for (const value of Object.values(shellSentinels)) expect(text).not.toContain(value);
  });

  it('puts RDS Proxy in front of the database when the stage has one, with TLS and the secret', () => {
    const proxy = resources.DatabaseProxy;
    expect(proxy.Type).toBe('AWS::RDS::DBProxy');
    expect(proxy.Condition).toBe('UseProxy');
    expect(proxy.Properties).toMatchObject({ EngineFamily: 'POSTGRESQL', RequireTLS: true });
    expect(proxy.Properties.Auth).toEqual([
      expect.objectContaining({ AuthScheme: 'SECRETS', IAMAuth: 'DISABLED' }),
    ]);
    const targets = resources.DatabaseProxyTargets;
    expect(targets.Condition).toBe('UseProxy');
    expect(refTarget(targets.Properties.DBProxyName)).toBe('DatabaseProxy');
    expect(targets.Properties.ConnectionPoolConfigurationInfo.MaxConnectionsPercent).toBeLessThanOrEqual(90);
    // The proxy's role reads only the database secret.
    const proxyRole = statementsOf(resources[refTarget(proxy.Properties.RoleArn) as string]);
    expect(proxyRole.flatMap((s) => s.Action)).toEqual(['secretsmanager:GetSecretValue']);
    expect(proxyRole[0].Resource).toEqual(proxy.Properties.Auth.map((a: Json) => a.SecretArn));
    // Every function connects to the proxy's endpoint when there is one.
    for (const [id, fn] of functions) {
      const host = fn.Properties.Environment.Variables.DATABASE_HOST['Fn::If'];
      expect(host?.[0], id).toBe('UseProxy');
      expect(host[1], id).toEqual({ 'Fn::GetAtt': ['DatabaseProxy', 'Endpoint'] });
      expect(fn.Properties.Environment.Variables.DATABASE_PREPARE, id).toBe('off');
    }
  });

  it('bounds the database connections: reserved concurrency times the pool of each function', () => {
    let total = 0;
    const rows: string[] = [];
    for (const [id, fn] of functions) {
      const reserved = fn.Properties.ReservedConcurrentExecutions;
      const pool = Number(fn.Properties.Environment.Variables.DATABASE_MAX_CONNECTIONS);
      expect(reserved, id).toBeGreaterThanOrEqual(1);
      expect(pool, id).toBeLessThanOrEqual(roleOf(fn) === 'ApiRole' ? 1 : 2);
      total += reserved * pool;
      rows.push(`${id.replace(/LambdaFunction$/, '')} ${reserved}×${pool}`);
    }
    console.info(`database connections at most ${total}: ${rows.join(', ')}`);
    // docs/deploy.md sizes the database (or the proxy's share of it) for this figure.
    expect(total).toBeLessThanOrEqual(160);
    for (const m of mappings) {
      const fn = functionOf(m);
      if (m.ScalingConfig?.MaximumConcurrency) {
        expect(m.ScalingConfig.MaximumConcurrency).toBeLessThanOrEqual(
          fn.Properties.ReservedConcurrentExecutions,
        );
      }
    }
  });

  it('configures every function for SQS queues and Secrets Manager', () => {
    for (const [id, fn] of functions) {
      const cfg = loadConfig(renderedEnvironment(fn));
      expect(cfg.stage, id).toBe('aws');
      expect(cfg.databaseUrl, id).toBeUndefined();
      expect(cfg.database, id).toMatchObject({
        secretId: `anomaly-monitor/${STAGE}/database`,
        prepare: false,
        sslmode: 'require',
      });
      expect(cfg.queue.backend, id).toBe('sqs');
      expect(Object.keys(cfg.queue.queueUrls).sort(), id).toEqual([...jobQueues].sort());
      expect(cfg.secrets, id).toMatchObject({
        backend: 'aws',
        awsPrefix: `anomaly-monitor/${STAGE}/secrets/`,
      });
    }
  });

  it('carries the source database drivers and the AWS SDK in the load worker', () => {
    const map = pkg.artifacts
      .get('loadWorker')
      ?.files.get('functions/workers/load.mjs.map')
      ?.toString('utf8');
    const sources: string[] = JSON.parse(map ?? '{"sources":[]}').sources;
    for (const driver of [...SOURCE_DRIVERS, 'postgres', '@aws-sdk/client-sqs']) {
      expect(
        sources.some((f) => f.includes(`node_modules/${driver}/`)),
        driver,
      ).toBe(true);
    }
  });

  it('answers within API Gateway: every HTTP function times out before the 30 s integration limit', () => {
    const routed = new Set(
      resourcesOf(pkg.template, 'AWS::ApiGatewayV2::Integration').map(([, i]) =>
        refTarget(i.Properties.IntegrationUri),
      ),
    );
    expect(routed.size).toBeGreaterThan(10);
    for (const id of routed) {
      expect(resources[id as string].Properties.Timeout, id).toBeLessThanOrEqual(29);
    }
  });

  it('throttles the HTTP API at the gateway', () => {
    const [[, stage]] = resourcesOf(pkg.template, 'AWS::ApiGatewayV2::Stage');
    const throttle = stage.Properties.DefaultRouteSettings;
    expect(throttle.ThrottlingRateLimit).toBeGreaterThan(0);
    expect(throttle.ThrottlingBurstLimit).toBeGreaterThanOrEqual(throttle.ThrottlingRateLimit);
  });

  it('serves the web UI from a private bucket behind CloudFront, with the security headers and /api/* to the API', () => {
    const bucket = resources.WebBucket.Properties;
    expect(Object.values(bucket.PublicAccessBlockConfiguration)).toEqual([true, true, true, true]);
    const policy = resources.WebBucketPolicy.Properties.PolicyDocument.Statement;
    expect(policy).toHaveLength(1);
    expect(policy[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(policy[0].Action).toBe('s3:GetObject');
    const dist = resources.WebDistribution.Properties.DistributionConfig;
    expect(dist.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    const headers =
      resources[refTarget(dist.DefaultCacheBehavior.ResponseHeadersPolicyId) as string].Properties
        .ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(headers.ContentSecurityPolicy.ContentSecurityPolicy).toBe(UI_CSP);
    expect(headers.StrictTransportSecurity.AccessControlMaxAgeSec).toBeGreaterThanOrEqual(31536000);
    expect(headers.ContentTypeOptions.Override).toBe(true);
    expect(headers.FrameOptions.FrameOption).toBe('DENY');
    const api = dist.CacheBehaviors.find((b: Json) => b.PathPattern === '/api/*');
    const apiOrigin = dist.Origins.find((o: Json) => o.Id === api.TargetOriginId);
    expect(JSON.stringify(apiOrigin.DomainName)).toContain('HttpApi');
    // CachingDisabled: answers are per caller.
    expect(api.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(api.AllowedMethods).toContain('POST');
    // No Lambda serves the UI on AWS.
    expect(resources.WebLambdaFunction).toBeUndefined();
  });

  it('alarms on dead letters, function errors and throttles, and failed jobs, through one SNS topic', () => {
    const alarms = resourcesOf(pkg.template, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    expect(resources.AlarmTopic.Type).toBe('AWS::SNS::Topic');
    for (const a of alarms) expect(refTarget(a.AlarmActions[0])).toBe('AlarmTopic');
    const on = (ns: string, metric: string) =>
      alarms.filter((a) => a.Namespace === ns && a.MetricName === metric);
    const dlqs = jobQueues.map((q) =>
      refTarget(queueNamed(q)[1].Properties.RedrivePolicy.deadLetterTargetArn),
    );
    expect(
      on('AWS/SQS', 'ApproximateNumberOfMessagesVisible')
        .map((a) => a.Dimensions[0].Value['Fn::GetAtt'][0])
        .sort(),
    ).toEqual([...dlqs].sort());
    for (const metric of ['Errors', 'Throttles']) {
      const watched = on('AWS/Lambda', metric).map((a) => refTarget(a.Dimensions[0].Value));
      expect(new Set(watched), metric).toEqual(new Set(functions.map(([id]) => id)));
    }
    const failed = on('AnomalyMonitor', 'JobsFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0].Dimensions).toEqual([{ Name: 'service', Value: 'anomaly-monitor' }]);
  });

  it('traces every function with X-Ray and tells Powertools the service and namespace', () => {
    for (const [id, fn] of functions) {
      expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Environment.Variables, id).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'anomaly-monitor',
        POWERTOOLS_METRICS_NAMESPACE: 'AnomalyMonitor',
      });
    }
  });

  it('ships the API reference renderer with the system function only', () => {
    for (const [name, a] of pkg.artifacts) {
      const has = a.files.has('node_modules/swagger-ui-dist/swagger-ui-bundle.js');
      expect(has, name).toBe(name === 'system');
    }
    expect(pkg.artifacts.get('system')?.files.has('node_modules/swagger-ui-dist/swagger-ui.css')).toBe(true);
  });

  it('loads every function bundle with no node_modules beside it, as Lambda does', async () => {
    const dir = path.join(pkg.dir, 'unzipped');
    const bundles: string[] = [];
    // Each function in its own folder, as Lambda unpacks each zip alone.
    for (const [fn, a] of pkg.artifacts) {
      for (const [name, data] of a.files) {
        const file = path.join(dir, fn, name);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, data);
        if (name.endsWith('.mjs')) bundles.push(file);
      }
    }
    const script = `const failed = [];
      for (const f of ${JSON.stringify(bundles)}) {
        try { if (typeof (await import(f)).handler !== 'function') failed.push(f + ': no handler'); }
        catch (e) { failed.push(f + ': ' + e.message.split('\\n')[0]); }
      }
      console.log(JSON.stringify(failed));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir },
      timeout: 300_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').pop() as string)).toEqual([]);
  }, 300_000);
});
