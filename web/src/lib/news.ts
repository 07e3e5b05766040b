/**
 * The colour of a move: by its news when the view says which direction of the measure is bad
 * (`news`: good is green, bad is red, whatever the direction), else by its direction as before.
 */
import type { Anomaly } from './types';

export function resultTone(a: Pick<Anomaly, 'result' | 'news'>): string {
  if (a.news === 'good') return 'green';
  if (a.news === 'bad') return 'red';
  return a.result === 'Positive' ? 'pos' : 'neg';
}

/** The badge's tooltip: whether the move is good or bad news for its measure. */
export function newsTitle(a: Pick<Anomaly, 'news'>): string | undefined {
  if (a.news === 'good') return 'Good news: this direction is welcome for this measure';
  if (a.news === 'bad') return 'Bad news: the direction the data view marks as bad for this measure';
  return undefined;
}
