/** Display formats shared by every page. */

const num = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** A number with at most two decimals; a dash for missing values. */
export function fmt(n: number | null | undefined): string {
  return n === null || n === undefined || Number.isNaN(n) ? '–' : num.format(n);
}

export function pct(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : `${num.format(n)} %`;
}

/** ISO timestamp to local `yyyy-MM-dd HH:mm:ss`. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `{Country: 'DE', City: null}` → `Country=DE · City=all`. */
export function categoriesText(c: Record<string, string | null> | undefined): string {
  const entries = Object.entries(c ?? {});
  if (entries.length === 0) return 'all';
  return entries.map(([k, v]) => `${k}=${v ?? 'all'}`).join(' · ');
}

/** Days between two yyyy-MM-dd dates (b − a). */
export function dayDiff(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/** yyyy-MM-dd shifted by `days`. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
