/** A plain textarea with line numbers and inline error markers (the lines a 400's field errors point to). */
import { type KeyboardEvent, useId, useRef } from 'react';
import type { Marker } from '../lib/yaml-doc';

interface Props {
  label: string;
  value: string;
  onChange: (text: string) => void;
  markers: Marker[];
  readOnly?: boolean;
}

const LINE_PX = 20;

export function YamlEditor({ label, value, onChange, markers, readOnly }: Props) {
  const id = useId();
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const bands = useRef<HTMLDivElement>(null);
  const lines = value.split('\n').length;
  const byLine = new Map<number, Marker[]>();
  for (const m of markers) byLine.set(m.line, [...(byLine.get(m.line) ?? []), m]);

  const goTo = (line: number) => {
    const el = area.current;
    if (!el) return;
    const start =
      value
        .split('\n')
        .slice(0, line - 1)
        .join('\n').length + (line > 1 ? 1 : 0);
    el.focus();
    el.setSelectionRange(start, start);
    el.scrollTop = Math.max(0, (line - 4) * LINE_PX);
  };

  // Tab indents by two spaces instead of leaving the field; Escape then Tab still leaves it.
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key !== 'Tab' || e.shiftKey || readOnly) return;
    const el = e.currentTarget;
    if (el.dataset.escaped === '1') return;
    e.preventDefault();
    const { selectionStart: s, selectionEnd: t } = el;
    onChange(`${value.slice(0, s)}  ${value.slice(t)}`);
    requestAnimationFrame(() => el.setSelectionRange(s + 2, s + 2));
  };

  return (
    <div className="yaml-editor">
      <label htmlFor={id}>{label}</label>
      <div className={`editor-box${markers.length ? ' invalid' : ''}`}>
        <div className="gutter" ref={gutter} aria-hidden="true">
          {Array.from({ length: lines }, (_, i) => {
            const m = byLine.get(i + 1);
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: a gutter row is its line number
              <div key={i} className={m ? 'marked' : undefined} title={m?.map((x) => x.message).join('\n')}>
                {m ? '● ' : ''}
                {i + 1}
              </div>
            );
          })}
        </div>
        <div className="code">
          {/* A red band behind each line an error points to, scrolled with the text. */}
          <div className="bands" ref={bands} aria-hidden="true">
            {[...byLine.keys()].map((line) => (
              <div key={line} style={{ top: (line - 1) * LINE_PX }} />
            ))}
          </div>
          <textarea
            id={id}
            ref={area}
            spellCheck={false}
            autoCapitalize="off"
            autoComplete="off"
            wrap="off"
            readOnly={readOnly}
            value={value}
            aria-invalid={markers.length > 0}
            aria-describedby={markers.length ? `${id}-errors` : `${id}-help`}
            onChange={(e) => onChange(e.target.value)}
            onKeyDown={onKeyDown}
            onKeyUp={(e) => {
              e.currentTarget.dataset.escaped = e.key === 'Escape' ? '1' : '';
            }}
            onScroll={(e) => {
              const { scrollTop, scrollLeft } = e.currentTarget;
              if (gutter.current) gutter.current.scrollTop = scrollTop;
              if (bands.current)
                bands.current.style.transform = `translate(${-scrollLeft}px, ${-scrollTop}px)`;
            }}
            rows={Math.min(Math.max(lines + 1, 16), 36)}
          />
        </div>
      </div>
      <small id={`${id}-help`} className="hint">
        Tab indents; press Escape, then Tab, to leave the editor.
      </small>
      {markers.length > 0 && (
        <ul id={`${id}-errors`} className="editor-errors" aria-label="Definition errors">
          {[...markers]
            .sort((a, b) => a.line - b.line)
            .map((m) => (
              <li key={`${m.line}:${m.path}:${m.message}`}>
                <button type="button" className="link" onClick={() => goTo(m.line)}>
                  Line {m.line}
                </button>
                {m.path ? (
                  <>
                    {' '}
                    <code>{m.path}</code>
                  </>
                ) : null}{' '}
                {m.message}
              </li>
            ))}
        </ul>
      )}
    </div>
  );
}
