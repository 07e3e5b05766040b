/**
 * How a summary cites what it speaks of (docs/summaries.md, "Citations"). An incident is cited as
 * `[incident <dataViewId>:<incidentId>]` — incident ids are numbered per data view, so the view is part
 * of the citation — and a record that belongs to no incident as `[anomaly <id>]`. The UI turns each
 * citation into a link. Pure: the prompt writes citations, `checkCitations` checks the model's answer
 * against the prompt before it is stored.
 */

export interface IncidentRef {
  dataViewId: number;
  incidentId: number;
}

/** The one form of an incident citation, e.g. `[incident 1:42]`. */
export function incidentCitation(ref: IncidentRef): string {
  return `[incident ${ref.dataViewId}:${ref.incidentId}]`;
}

/** The one form of a record citation, e.g. `[anomaly 7]`. */
export function anomalyCitation(id: number): string {
  return `[anomaly ${id}]`;
}

/**
 * A citation as the UI finds it in a stored summary: group 1 the data view id, group 2 the incident id.
 * Stored summaries hold only this form (checkCitations rewrites the others).
 */
export const INCIDENT_CITATION = /\[incident (\d+):(\d+)\]/g;

/** What the prompt allows a summary to cite. */
export interface Citable {
  incidents: readonly IncidentRef[];
  anomalies: readonly number[];
}

export interface CitationCheck {
  /** The text to store: known citations in their one form, the others removed. */
  text: string;
  /** Incidents cited, each once, in order of first citation. */
  incidents: IncidentRef[];
  /** Records cited, each once, in order of first citation. */
  anomalies: number[];
  /** Citations that named nothing in the prompt (as the model wrote them): removed from the text. */
  removed: string[];
}

// Any bracket that starts like a citation: "[incident 1:42]", "[Incident 42]", "[incidents 1:4, 1:5]",
// "[anomaly 7]", "[anomalies 7 and 9]". The list inside is parsed apart.
const ANY_CITATION = /\[\s*(incidents?|anomal(?:y|ies))\s+([^\]\n]{1,120})\]/gi;
const REF = /^(?:(\d+)\s*:\s*)?(\d+)$/;

/**
 * Checks the citations of a model's answer against what the prompt held: a known citation is kept in its one
 * form (an incident cited without its view, `[incident 42]`, is completed when one incident of the prompt has
 * that id); a citation of anything the prompt did not hold is removed from the text and reported.
 */
export function checkCitations(text: string, citable: Citable): CitationCheck {
  const incidentKeys = new Map(citable.incidents.map((r) => [`${r.dataViewId}:${r.incidentId}`, r]));
  const byIncidentId = new Map<number, IncidentRef[]>();
  for (const r of citable.incidents)
    byIncidentId.set(r.incidentId, [...(byIncidentId.get(r.incidentId) ?? []), r]);
  const anomalyIds = new Set(citable.anomalies);
  const incidents = new Map<string, IncidentRef>();
  const anomalies = new Set<number>();
  const removed: string[] = [];

  const out = text.replace(ANY_CITATION, (whole, kind: string, list: string) => {
    const isIncident = kind.toLowerCase().startsWith('incident');
    const parts = list
      .split(/\s*(?:,|;|\band\b|&)\s*/i)
      .map((p) => p.trim())
      .filter(Boolean);
    const kept: string[] = [];
    let unknown = false;
    for (const part of parts) {
      const m = REF.exec(part);
      if (!m) {
        unknown = true;
        continue;
      }
      if (isIncident) {
        const ref =
          m[1] !== undefined
            ? incidentKeys.get(`${Number(m[1])}:${Number(m[2])}`)
            : byIncidentId.get(Number(m[2]))?.length === 1
              ? byIncidentId.get(Number(m[2]))?.[0]
              : undefined;
        if (!ref) {
          unknown = true;
          continue;
        }
        incidents.set(`${ref.dataViewId}:${ref.incidentId}`, ref);
        kept.push(incidentCitation(ref));
      } else {
        // A record id alone; "1:7" is no record.
        const id = Number(m[2]);
        if (m[1] !== undefined || !anomalyIds.has(id)) {
          unknown = true;
          continue;
        }
        anomalies.add(id);
        kept.push(anomalyCitation(id));
      }
    }
    if (unknown) removed.push(whole);
    return kept.join(' ');
  });
  return {
    // A removed citation leaves no double space or space before punctuation behind.
    text: removed.length
      ? out
          .replace(/[ \t]+([.,;:!?)])/g, '$1')
          .replace(/[ \t]{2,}/g, ' ')
          .trim()
      : out,
    incidents: [...incidents.values()],
    anomalies: [...anomalies],
    removed,
  };
}
