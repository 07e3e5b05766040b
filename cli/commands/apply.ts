/** apply and export: data views, filters and alert subscriptions as YAML files (configuration as code, docs/cli.md). */
import type { Command } from 'commander';
import { exportConfiguration } from '../config-as-code/export';
import { readDeclarations } from '../config-as-code/documents';
import { declarationEnv } from '../config';
import { applyPlan, buildPlan, type Step, type StepResult } from '../config-as-code/plan';
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

const VERB: Record<Step['action'], string> = {
  create: 'Created',
  update: 'Updated',
  replace: 'Replaced',
  delete: 'Deleted',
  unchanged: 'Kept',
};

/** One line per change carried out, refused or skipped. */
function resultLine({ step, outcome, error }: StepResult): string {
  if (outcome === 'applied') return `${VERB[step.action]} ${step.kind} ${step.key}.`;
  if (outcome === 'skipped')
    return `Skipped ${step.kind} ${step.key}: what it needs (${step.needs}) was not applied.`;
  return `Refused ${step.action} of ${step.kind} ${step.key}: ${error?.message}`;
}

/** The error of a run where some changes were refused: exactly what was and was not applied. */
function notAllApplied(results: StepResult[], total: number): CliError {
  const applied = results.filter((r) => r.outcome === 'applied');
  const refused = results.filter((r) => r.outcome === 'failed');
  const skipped = results.filter((r) => r.outcome === 'skipped');
  const names = (list: StepResult[]) => list.map((r) => `${r.step.kind} ${r.step.key}`).join(', ') || 'none';
  const first = refused[0]?.error;
  return new CliError(
    `${applied.length} of ${total} change(s) applied (${names(applied)}); ${refused.length} refused ` +
      `(${names(refused)}); ${skipped.length} skipped (${names(skipped)}).\n` +
      refused.map((r) => `  ${r.error?.message}`).join('\n'),
    first?.exitCode ?? ExitCode.failure,
    first?.problem,
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
    .option('--load', 'request the first load of each data view this run deploys and enables')
    .addHelpText(
      'after',
      `\nSecrets come from the environment: an alert's url may be \${env:ANOMALY_MONITOR_SECRET_<NAME>} (a Slack\n` +
        'URL must be one); a reference anywhere else, or to another variable, is refused.\n' +
        'A resource is found by its name: a data view by domain/name, a filter or subscription by name.',
    )
    .action(
      async (target: string, o: { dryRun?: boolean; prune?: boolean; load?: boolean }, cmd: Command) => {
        const ctx = context(cmd);
        const declared = await readDeclarations(target, declarationEnv());
        const { steps, execution } = await buildPlan(ctx.api, declared, {
          prune: o.prune === true,
          load: o.load === true,
        });
        const changing = steps.filter((s) => s.action !== 'unchanged');
        if (o.dryRun || changing.length === 0) {
          ctx.out.result({ plan: steps.map(view), applied: false }, () => printPlan(ctx, steps));
          if (o.dryRun && changing.length > 0)
            throw new CliError(`${changing.length} change(s) pending (dry run).`, ExitCode.changesPending);
          return;
        }
        if (!ctx.settings.json) printPlan(ctx, steps);
        const results = await applyPlan(steps, execution, (r) => ctx.out.notice(resultLine(r)));
        for (const note of execution.notes) ctx.out.notice(note);
        for (const w of execution.webhooks)
          ctx.out.notice(
            `Webhook subscription ${w.name} (${w.id}) signs with a secret that was not printed; get one with \`service-cli alerts rotate-secret ${w.id}\`.`,
          );
        const applied = results.filter((r) => r.outcome === 'applied').length;
        const refused = results.filter((r) => r.outcome !== 'applied');
        ctx.out.result(
          {
            plan: steps.map(view),
            applied: refused.length === 0,
            results: results.map((r) => ({ ...view(r.step), outcome: r.outcome, error: r.error?.message })),
          },
          () => ctx.out.line(`Applied ${applied} of ${changing.length} change(s).`),
        );
        if (refused.length) throw notAllApplied(results, changing.length);
      },
    );

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
