import t from 'tap';
import {
  BUILTIN_PROFILES,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_SECONDS,
  parseProfiles,
} from '../../../src/core/workers/profiles.js';

t.test('built-in profiles', async (t) => {
  t.same(Object.keys(BUILTIN_PROFILES), ['claude-code', 'codex']);
  t.equal(BUILTIN_PROFILES['claude-code']!.format, 'claude-stream-json');
  t.ok(BUILTIN_PROFILES['claude-code']!.resume.includes('--continue'), 'a later turn continues the conversation');
  t.same(BUILTIN_PROFILES.codex!.resume.slice(0, 4), ['codex', 'exec', 'resume', '--last']);
});

t.test('a profiles file', async (t) => {
  const parsed = parseProfiles({
    profiles: {
      reviewer: {
        command: ['my-agent', '--review'],
        format: 'text',
        timeout_seconds: 60,
        max_output_bytes: 1000,
        env: { MODE: 'review' },
        resume: ['my-agent', '--resume'],
      },
      plain: { command: ['agent'] },
    },
  });
  t.same(parsed.reviewer, {
    name: 'reviewer',
    command: ['my-agent', '--review'],
    resume: ['my-agent', '--resume'],
    format: 'text',
    timeoutSeconds: 60,
    maxOutputBytes: 1000,
    env: { MODE: 'review' },
  });
  t.same(
    parsed.plain,
    {
      name: 'plain',
      command: ['agent'],
      resume: ['agent'],
      format: 'events',
      timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
      maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES,
      env: {},
    },
    'defaults: events, the command resumes too',
  );
});

t.test('refusals name the entry', async (t) => {
  const bad = (profiles: unknown) => () => parseProfiles({ profiles });
  t.throws(() => parseProfiles(null), /expected \{"profiles"/);
  t.throws(() => parseProfiles({ profiles: [] }), /expected \{"profiles"/);
  t.throws(() => parseProfiles({ profiles: null }), /expected \{"profiles"/);
  t.throws(() => parseProfiles({}), /expected \{"profiles"/);
  t.throws(() => parseProfiles('profiles'), /expected \{"profiles"/);
  t.throws(bad({ 'Bad Name': { command: ['x'] } }), /profiles\.Bad Name: a name is/);
  t.throws(bad({ a: null }), /profiles\.a: expected an object/);
  t.throws(bad({ a: [] }), /profiles\.a: expected an object/);
  t.throws(bad({ a: { command: ['x'], colour: 'red' } }), /profiles\.a\.colour: unknown field/);
  t.throws(bad({ a: { command: [] } }), /profiles\.a\.command: expected a non-empty list/);
  t.throws(bad({ a: { command: [''] } }), /profiles\.a\.command/);
  t.throws(bad({ a: { command: 'x' } }), /profiles\.a\.command/);
  t.throws(bad({ a: { command: ['x', 1] } }), /profiles\.a\.command/);
  t.throws(bad({ a: { command: ['x'], resume: [] } }), /profiles\.a\.resume/);
  t.throws(
    bad({ a: { command: ['x'], format: 'xml' } }),
    /profiles\.a\.format: expected one of text, events, claude-stream-json/,
  );
  t.throws(
    bad({ a: { command: ['x'], timeout_seconds: 0 } }),
    /profiles\.a\.timeout_seconds: expected a whole number from 1/,
  );
  t.throws(bad({ a: { command: ['x'], timeout_seconds: 1.5 } }), /timeout_seconds/);
  t.throws(bad({ a: { command: ['x'], max_output_bytes: '10' } }), /max_output_bytes/);
  t.throws(bad({ a: { command: ['x'], env: { A: 1 } } }), /profiles\.a\.env: expected an object of strings/);
  t.throws(bad({ a: { command: ['x'], env: ['A'] } }), /profiles\.a\.env/);
  t.throws(bad({ a: { command: ['x'], env: null } }), /profiles\.a\.env/);
  t.throws(bad({ a: { command: ['x'], env: 'A=1' } }), /profiles\.a\.env/);
  t.throws(bad({ a: { command: ['x'], timeout_seconds: 10 ** 9 } }), /timeout_seconds/);
});
