/**
 * A load worker in its own process (killed with SIGKILL by kill-load-worker.test.ts): the real load worker
 * handler, its container built from the environment (DATABASE_URL is the parent's served database), and a
 * source that pauses after each batch and says so on stdout, so that the parent can kill it mid-stream.
 * Arguments: <jobId> <dataViewId>. Environment: the service config, SOURCE_CONN (the pgsql source).
 */
import { handler } from '../../functions/workers/load';
import { setContainer } from '../../functions/container';
import { buildContainer } from '../../lib/app/container';
import { loadConfig } from '../../lib/config/config';
import { openSource } from '../../lib/connectors/index';
import { sqsEvent, sqsRecord } from '../../lib/queue/records';

async function main() {
  const [jobId, dataViewId] = process.argv.slice(2).map(Number);
  const c = await buildContainer(loadConfig(process.env));
  setContainer(c);
  c.sources = async () => {
    const real = await openSource('pgsql', { conn_string: process.env.SOURCE_CONN }, { timeoutMs: 10_000 });
    return {
      ...real,
      async *stream(text, opts) {
        for await (const batch of real.stream(text, opts)) {
          process.stdout.write(`BATCH ${batch.length}\n`);
          await new Promise((r) => setTimeout(r, 300));
          yield batch;
        }
      },
      async *streamColumns(text, opts) {
        for await (const batch of real.streamColumns(text, opts)) {
          process.stdout.write(`BATCH ${batch.length}\n`);
          await new Promise((r) => setTimeout(r, 300));
          yield batch;
        }
      },
    };
  };
  const result = await handler(sqsEvent([sqsRecord('load', { jobId, dataViewId, kind: 'Load' })]), {});
  process.stdout.write(`DONE ${JSON.stringify(result)}\n`);
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
