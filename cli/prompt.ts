/** Interactive questions for `login` when the terminal allows them; the answer to a password question is not echoed. */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** Asks one question on the terminal; `hidden` keeps the typed text off the screen. */
export function ask(question: string, hidden = false): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _enc, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stderr.write('\n');
      resolve(answer.trim());
    });
    muted = hidden;
  });
}

export const interactive = () => process.stdin.isTTY === true && process.stderr.isTTY === true;
