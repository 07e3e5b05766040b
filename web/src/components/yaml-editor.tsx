/**
 * The definition editor: CodeMirror 6 with YAML, folding, completion and hover from the definition's
 * JSON Schema (hover from codemirror-json-schema, completion from lib/yaml-completion.ts), and the service's field errors underlined where they point
 * (`markers`), with a list of them below, each a link to its place.
 */
import { indentWithTab } from '@codemirror/commands';
import { yaml, yamlLanguage } from '@codemirror/lang-yaml';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, hoverTooltip, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { getJSONSchema, stateExtensions, updateSchema } from 'codemirror-json-schema';
import { yamlSchemaHover } from 'codemirror-json-schema/yaml';
import { useEffect, useId, useRef } from 'react';
import { definitionCompletion } from '../lib/yaml-completion';
import type { Marker } from '../lib/yaml-doc';

interface Props {
  label: string;
  value: string;
  onChange: (text: string) => void;
  markers: Marker[];
  /** The definition's schema (GET /dataviews/definition-schema): completion and hover. */
  schema?: object;
  readOnly?: boolean;
}

function diagnostics(markers: Marker[], length: number): Diagnostic[] {
  return markers.map((m) => ({
    from: Math.min(m.from, length),
    to: Math.min(Math.max(m.to, m.from), length),
    severity: 'error',
    source: m.path || undefined,
    message: m.path ? `${m.path}: ${m.message}` : m.message,
  }));
}

export function YamlEditor({ label, value, onChange, markers, schema, readOnly }: Props) {
  const id = useId();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is created once; value, schema and markers follow below
  useEffect(() => {
    const v = new EditorView({
      parent: host.current as HTMLDivElement,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          // Tab indents; Escape then Tab leaves the editor (CodeMirror's own escape hatch).
          keymap.of([indentWithTab]),
          yaml(),
          // Keys and values from the schema (lib/yaml-completion.ts); hover explains a key.
          yamlLanguage.data.of({
            autocomplete: definitionCompletion((ctx) => getJSONSchema(ctx.state) || undefined),
          }),
          hoverTooltip(yamlSchemaHover()),
          stateExtensions(),
          EditorView.lineWrapping,
          lintGutter(),
          EditorState.readOnly.of(Boolean(readOnly)),
          EditorView.contentAttributes.of({
            'aria-labelledby': `${id}-label`,
            'aria-describedby': `${id}-help`,
          }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) changed.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
  }, []);

  // A value set from outside (Discard changes, a generated definition) replaces the text.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    if (view.current && schema) updateSchema(view.current, schema as Parameters<typeof updateSchema>[1]);
  }, [schema]);

  useEffect(() => {
    const v = view.current;
    if (v) v.dispatch(setDiagnostics(v.state, diagnostics(markers, v.state.doc.length)));
  }, [markers]);

  const goTo = (m: Marker) => {
    const v = view.current;
    if (!v) return;
    v.dispatch({ selection: { anchor: Math.min(m.from, v.state.doc.length) }, scrollIntoView: true });
    v.focus();
  };

  return (
    <div className="yaml-editor">
      <span id={`${id}-label`} className="editor-label">
        {label}
      </span>
      <div ref={host} className={`editor-box${markers.length ? ' invalid' : ''}`} />
      <small id={`${id}-help`} className="hint">
        Ctrl+Space completes keys, detector types and params; hover a key for its meaning and range. Tab
        indents; press Escape, then Tab, to leave the editor.
      </small>
      {markers.length > 0 && (
        <ul className="editor-errors" aria-label="Definition errors">
          {[...markers]
            .sort((a, b) => a.from - b.from)
            .map((m) => (
              <li key={`${m.from}:${m.path}:${m.message}`}>
                <button type="button" className="link" onClick={() => goTo(m)}>
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
