/**
 * A scripted `LanguageModel` for tests (no network here): each request to the model takes the
 * next step of its script, which sees what the model was sent (prompt, tools, tool choice) and
 * says what the model answers: text, tool calls, or both. Streaming requests (the tool loop)
 * and non-streaming ones (sampling) have separate scripts. Every request is recorded.
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/** What the model answers to one request. */
export interface Answer {
  readonly text?: string
  readonly calls?: ReadonlyArray<{ readonly name: string; readonly params: object }>
}

/** One step: looks at the request, answers (or fails, or never answers). */
export type Step = (request: LanguageModel.ProviderOptions) => Answer | Effect.Effect<Answer, AiError.AiError>

/** The model's scripts. */
export interface Script {
  /** For `streamText` (the tool loop). */
  readonly turns?: ReadonlyArray<Step>
  /** For `generateText` (sampling). */
  readonly samples?: ReadonlyArray<Step>
}

/** A request the model received. */
export interface Received {
  readonly mode: "stream" | "generate"
  readonly request: LanguageModel.ProviderOptions
}

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
let callIds = 0

const answerOf = (
  steps: ReadonlyArray<Step> | undefined,
  index: number,
  request: LanguageModel.ProviderOptions
): Effect.Effect<Answer, AiError.AiError> => {
  const step = steps?.[index]
  if (step === undefined)
    return Effect.fail(
      new AiError.UnknownError({
        module: "ScriptedModel",
        method: "step",
        description: `no step ${index + 1} in the script`
      })
    )
  const answer = step(request)
  return Effect.isEffect(answer) ? answer : Effect.succeed(answer)
}

const calls = (answer: Answer): Array<Response.ToolCallPartEncoded> =>
  (answer.calls ?? []).map((call) => ({
    type: "tool-call",
    id: `call-${++callIds}`,
    name: call.name,
    params: call.params
  }))

const finish = (answer: Answer): Response.FinishPartEncoded => ({
  type: "finish",
  reason: (answer.calls ?? []).length > 0 ? "tool-calls" : "stop",
  usage
})

/** The model, and the requests it received. */
export const scriptedModel = (script: Script) => {
  const received: Array<Received> = []
  let turn = 0
  let sample = 0
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (request) =>
        Effect.suspend(() => {
          received.push({ mode: "generate", request })
          return answerOf(script.samples, sample++, request)
        }).pipe(
          Effect.map(
            (answer): Array<Response.PartEncoded> => [
              ...(answer.text === undefined ? [] : [{ type: "text" as const, text: answer.text }]),
              ...calls(answer),
              finish(answer)
            ]
          )
        ),
      streamText: (request) =>
        Stream.suspend(() => {
          received.push({ mode: "stream", request })
          return Stream.fromIterableEffect(
            Effect.map(answerOf(script.turns, turn++, request), (answer): Array<Response.StreamPartEncoded> => {
              const words = answer.text?.split(/(?<= )/) ?? []
              return [
                ...(words.length === 0
                  ? []
                  : [
                      { type: "text-start" as const, id: "text" },
                      ...words.map((delta) => ({ type: "text-delta" as const, id: "text", delta })),
                      { type: "text-end" as const, id: "text" }
                    ]),
                ...calls(answer),
                finish(answer)
              ]
            })
          )
        })
    })
  )
  return { layer, received }
}

/** The results of the last tool message of a prompt, by tool name. */
export const lastToolResults = (
  prompt: Prompt.Prompt
): Array<{ readonly name: string; readonly isFailure: boolean; readonly text: string }> => {
  const message = [...prompt.content].reverse().find((candidate) => candidate.role === "tool")
  if (message === undefined || message.role !== "tool") return []
  return message.content.map((part) => ({
    name: part.name,
    isFailure: part.isFailure,
    text: JSON.stringify(part.result)
  }))
}

/** The text of every user message of a prompt. */
export const userText = (prompt: Prompt.Prompt): string =>
  prompt.content
    .flatMap((message) =>
      message.role === "user" ? message.content.map((part) => (part.type === "text" ? part.text : "")) : []
    )
    .join("\n")
