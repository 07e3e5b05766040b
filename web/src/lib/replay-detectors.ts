/**
 * The detectors of a replayed definition (the editor's text when the replay was asked) and the one behind
 * a replay's record: what its chart's expectation is computed with (web/src/components/replay-panel.tsx).
 */
import { parse } from 'yaml';

/** The part of a record that names its detector. */
interface RecordOfDetector {
  type: string;
  detectorIndex: number;
}

/** A detector of the replayed definition, as the editor's text holds it. */
export interface EditedDetector {
  type: string;
  params?: Record<string, unknown>;
}

/** The detectors of the definition replayed (the editor's text when the replay was asked); [] when unreadable. */
export function editedDetectors(text: string): EditedDetector[] {
  try {
    const list = (parse(text) as { analysis?: { detectors?: unknown } } | null)?.analysis?.detectors;
    return Array.isArray(list) ? list.filter((d): d is EditedDetector => typeof d?.type === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The replayed definition's detector behind a record: the one at its index when of its type (a record the
 * change publishes), else the first of its type (a removed record: what the edited detector expects there).
 */
export function detectorOf(
  detectors: readonly EditedDetector[],
  r: RecordOfDetector,
): EditedDetector | undefined {
  const same = (d: EditedDetector | undefined) => d?.type.toLowerCase() === r.type.toLowerCase();
  const at = detectors[r.detectorIndex];
  return same(at) ? at : detectors.find(same);
}
