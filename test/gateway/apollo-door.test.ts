import type { FormattedExecutionResult } from 'graphql';
import { apolloDoorPlugin, keptAnswer, stringifyAnswer } from '../../gateway/apollo-door.js';
import type { Exchange, RequestPipeline } from '../../pipeline/pipeline.js';
import { RawJson, Utf8Parts } from '../../kernel/raw-json.js';
import { NO_BUDGET, jsonBytes } from '../../kernel/request-budget.js';

/**
 * gateway/apollo-door.ts: Apollo Server's `stringifyResult` finds the request an answer belongs to
 * on the answer itself, with no table of requests (bench/PROFILE.md, "Twelfth steps"). An answer
 * holding a subgraph's bytes is kept for its own request's pipeline, whatever else is in flight;
 * one whose `data` cannot carry its request (frozen: one subgraph's answer passed through, shared
 * by the requests in flight) is written whole as text.
 */
const plugin = apolloDoorPlugin({} as RequestPipeline);

/** A request as the door sees it: its exchange, and its `willSendResponse` hook. */
async function request() {
  const exchange = { budget: NO_BUDGET, failures: [], codes: [] } as unknown as Exchange;
  const listener = await plugin.requestDidStart!({ contextValue: { trace: exchange } } as never);
  const willSend = (answer: FormattedExecutionResult) => listener!.willSendResponse!({ response: { body: { kind: 'single', singleResult: answer } } } as never);
  return { exchange, willSend };
}

/** An answer whose questionnaire stayed as the subgraph's bytes, with non-ASCII text around it. */
function answerWithBytes(label: string): { answer: FormattedExecutionResult; text: string } {
  const questionnaire = [{ id: 'q1', answers: [{ id: 'a', score: 1.5 }] }];
  const raw = new RawJson(Buffer.from(JSON.stringify(questionnaire)), jsonBytes(questionnaire), {});
  const answer = { data: { modelVersion: { label, indicatorSpecifications: raw } } };
  return { answer, text: `${JSON.stringify({ data: { modelVersion: { label, indicatorSpecifications: questionnaire } } })}\n` };
}

function textOf(kept: FormattedExecutionResult | Utf8Parts | undefined): string {
  if (!(kept instanceof Utf8Parts)) throw new Error(`expected the answer kept as its parts, got ${typeof kept}`);
  return kept.text();
}

describe('the answer Apollo Server writes, and the request it belongs to', () => {
  it('keeps each answer holding bytes for its own request, when two are answered at once', async () => {
    const first = await request();
    const second = await request();
    const one = answerWithBytes('Première');
    const two = answerWithBytes('Zweite – ü');
    // Apollo Server runs the hook, then stringifies: two requests in flight interleave.
    await first.willSend(one.answer);
    await second.willSend(two.answer);
    expect(stringifyAnswer(one.answer)).toBe('');
    expect(stringifyAnswer(two.answer)).toBe('');
    expect(textOf(keptAnswer(first.exchange))).toBe(one.text);
    expect(textOf(keptAnswer(second.exchange))).toBe(two.text);
    // Taken once: a later ask finds nothing.
    expect(keptAnswer(first.exchange)).toBeUndefined();
  });

  it('writes an answer whose data is frozen whole, as text, and keeps nothing', async () => {
    const { exchange, willSend } = await request();
    const { answer, text } = answerWithBytes('Shared');
    Object.freeze(answer.data);
    await willSend(answer);
    expect(stringifyAnswer(answer)).toBe(text);
    expect(keptAnswer(exchange)).toBeUndefined();
  });

  it('writes an answer without bytes as JSON, the request it carries never in it', async () => {
    const { exchange, willSend } = await request();
    const answer = { data: { modelVersion: { label: 'Plain' } }, errors: [{ message: 'partial' }] };
    await willSend(answer);
    expect(stringifyAnswer(answer)).toBe(`${JSON.stringify({ data: { modelVersion: { label: 'Plain' } }, errors: [{ message: 'partial' }] })}\n`);
    expect(keptAnswer(exchange)).toBeUndefined();
  });
});
