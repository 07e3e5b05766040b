/** Content negotiation of GET /dataviews/{id}: JSON unless the Accept header prefers YAML. */

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

interface Range {
  type: string;
  q: number;
  order: number;
}

function ranges(accept: string): Range[] {
  return accept
    .split(',')
    .map((part, order) => {
      const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const q = params.map((p) => /^q=([0-9.]+)$/.exec(p)).find(Boolean);
      return { type, q: q ? Number(q[1]) : 1, order };
    })
    .filter((r) => r.type !== '' && Number.isFinite(r.q));
}

/** The best q (and earliest position) an Accept header gives to one of `types`; exact types beat wildcards. */
function score(list: Range[], types: string[]): { q: number; order: number } {
  const exact = list.filter((r) => types.includes(r.type));
  const pool = exact.length
    ? exact
    : list.filter((r) => r.type === '*/*' || types.some((t) => r.type === `${t.split('/')[0]}/*`));
  if (pool.length === 0) return { q: 0, order: Number.POSITIVE_INFINITY };
  const best = pool.reduce((a, b) => (b.q > a.q || (b.q === a.q && b.order < a.order) ? b : a));
  return { q: best.q, order: exact.length ? best.order : Number.POSITIVE_INFINITY };
}

/** True when the client asks for YAML more than for JSON (ties go to whichever it names first, then JSON). */
export function prefersYaml(accept: string | undefined): boolean {
  if (!accept) return false;
  const list = ranges(accept);
  const yaml = score(list, YAML_TYPES);
  const json = score(list, ['application/json']);
  if (yaml.q === 0) return false;
  return yaml.q > json.q || (yaml.q === json.q && yaml.order < json.order);
}
