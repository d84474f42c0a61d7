/**
 * Answers leave at the end of the event-loop turn they were made in (src/http/server/answer-batches.ts):
 * never before it, all of one turn together, and a failure at once.
 */
import { describe, expect, it } from 'vitest';
import { batchAnswers } from '../../src/http/server/answer-batches.js';

const answer = (text: string) => new Response(text);
const request = () => new Request('http://localhost/');

describe('answers batched by turn', () => {
  it('holds a ready answer until the check phase of its turn, then hands over that answer', async () => {
    const fetch = batchAnswers(() => answer('ready'));
    let handed: Response | undefined;
    void fetch(request()).then((res) => {
      handed = res;
    });
    // microtasks and next ticks of this turn: still held
    for (let i = 0; i < 20; i++) await Promise.resolve();
    await new Promise((r) => process.nextTick(r));
    expect(handed).toBeUndefined();
    // the next check phase (an immediate queued after the answer's own): handed over
    await new Promise((r) => setImmediate(r));
    expect(await handed?.text()).toBe('ready');
  });

  it('hands over every answer of one turn in the same check phase, and later ones in a later one', async () => {
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const fetch = batchAnswers(async (req: Request) => {
      // answers made after different numbers of awaits within the turn
      const depth = Number(new URL(req.url).searchParams.get('depth'));
      for (let i = 0; i < depth; i++) await Promise.resolve();
      return answer(String(depth));
    });
    const turnOf = (depth: number) => fetch(new Request(`http://localhost/?depth=${depth}`)).then(() => turn);
    const first = await Promise.all([turnOf(0), turnOf(3), turnOf(10)]);
    const later = await turnOf(0);
    ticking = false;
    expect(new Set(first).size).toBe(1);
    expect(later).toBeGreaterThan(first[0]!);
  });

  it('passes a failure on at once', async () => {
    const fetch = batchAnswers(() => Promise.reject(new Error('handler failed')));
    let settledIn: 'this turn' | 'later' | undefined;
    void fetch(request()).catch(() => {
      settledIn ??= 'this turn';
    });
    for (let i = 0; i < 10; i++) await Promise.resolve();
    settledIn ??= 'later';
    expect(settledIn).toBe('this turn');
  });
});
