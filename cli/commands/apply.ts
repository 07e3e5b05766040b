/** apply and export: data views, filters and alert subscriptions as YAML files (configuration as code, docs/cli.md). */
import type { Command } from 'commander';
import { exportConfiguration } from '../config-as-code/export';
import { readDeclarations } from '../config-as-code/documents';
import { declarationEnv } from '../config';
import { applyPlan, buildPlan, type Step } from '../config-as-code/plan';
import { type Ctx, context } from '../context';
import { CliError, ExitCode } from '../errors';
import { col } from '../output';

const SIGN: Record<Step['action'], string> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
  unchanged: '=',
};

function counts(steps: Step[]): Record<Step['action'], number> {
  const c = { create: 0, update: 0, replace: 0, delete: 0, unchanged: 0 };
  for (const s of steps) c[s.action]++;
  return c;
}

function printPlan({ out }: Ctx, steps: Step[]): void {
  out.table(
    steps,
    [
      { header: '', value: (s) => SIGN[s.action] },
      col('action', 'action'),
      col('kind', 'kind'),
      col('name', 'key', 50),
      { header: 'changes', value: (s) => s.changes.join(', '), max: 80 },
    ],
    'Nothing declared.',
  );
  const c = counts(steps);
  out.line(
    `Plan: ${c.create} to create, ${c.update} to update, ${c.replace} to replace, ${c.delete} to delete, ${c.unchanged} unchanged.`,
  );
}

const view = (s: Step) => ({ kind: s.kind, name: s.key, action: s.action, changes: s.changes });

export function registerApply(program: Command): void {
  program
    .command('apply')
    .description(
      'make the service match a folder (or file) of YAML: data views, filters, alert subscriptions',
    )
    .argument('<path>', 'a folder (read recursively: *.yaml, *.yml) or one file')
    .option('--dry-run', `print the plan only; exit ${ExitCode.changesPending} when something would change`)
    .option('--prune', 'also delete what is not declared (only of the kinds the folder declares)')
    .addHelpText(
      'after',
      `\nSecrets come from the environment: write \${env:NAME} in a value (a Slack URL must be one).\n` +
        'A resource is found by its name: a data view by domain/name, a filter or subscription by name.',
    )
    .action(async (target: string, o: { dryRun?: boolean; prune?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const declared = await readDeclarations(target, declarationEnv());
      const { steps, execution } = await buildPlan(ctx.api, declared, o.prune === true);
      const changing = steps.filter((s) => s.action !== 'unchanged');
      if (o.dryRun || changing.length === 0) {
        ctx.out.result({ plan: steps.map(view), applied: false }, () => printPlan(ctx, steps));
        if (o.dryRun && changing.length > 0)
          throw new CliError(`${changing.length} change(s) pending (dry run).`, ExitCode.changesPending);
        return;
      }
      if (!ctx.settings.json) printPlan(ctx, steps);
      let done = 0;
      try {
        await applyPlan(steps, execution, (s) => {
          done++;
          ctx.out.notice(
            `${s.action === 'delete' ? 'Deleted' : s.action === 'create' ? 'Created' : s.action === 'replace' ? 'Replaced' : 'Updated'} ${s.kind} ${s.key}.`,
          );
        });
      } catch (e) {
        if (e instanceof CliError)
          throw new CliError(
            `${e.message}\n(${done} of ${changing.length} change(s) applied before it.)`,
            e.exitCode,
            e.problem,
          );
        throw e;
      }
      for (const w of execution.webhooks)
        ctx.out.notice(
          `Webhook subscription ${w.name} (${w.id}) signs with a secret that was not printed; get one with \`service-cli alerts rotate-secret ${w.id}\`.`,
        );
      ctx.out.result({ plan: steps.map(view), applied: true }, () =>
        ctx.out.line(`Applied ${changing.length} change(s).`),
      );
    });

  program
    .command('export')
    .description(
      'write the data views, filters and alert subscriptions you can manage as YAML that apply reads',
    )
    .argument('<dir>', 'the folder to write into (created when missing; files of the same name are replaced)')
    .action(async (dir: string, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const result = await exportConfiguration(ctx.api, dir);
      ctx.out.result(result, () => {
        for (const f of result.files) ctx.out.line(f);
        ctx.out.line(`Wrote ${result.files.length} file(s) into ${dir}.`);
      });
      if (result.skippedViews)
        ctx.out.notice('Data views were left out: only an administrator exports them.');
      if (result.env.length)
        ctx.out.notice(`apply will read these secrets from the environment: ${result.env.join(', ')}`);
    });
}
