/**
 * The language model of `effect-mcp chat`: Anthropic or OpenAI through `@effect/ai`'s provider
 * packages, chosen by `--provider` (or by which key is set), with the key read from the
 * environment (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`) as a redacted `Config`. Without a key
 * the choice fails with a `UsageError` that says what to set. The provider packages are
 * loaded only when chosen (they take most of a second to import; other commands never pay it).
 *
 * @since 0.1.0
 */

import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { UsageError } from "./CliError.js"

/**
 * The providers `chat` speaks to.
 *
 * @since 0.1.0
 * @category constants
 */
export const providers = ["anthropic", "openai"] as const

/**
 * One of {@link providers}.
 *
 * @since 0.1.0
 * @category models
 */
export type ProviderName = (typeof providers)[number]

/**
 * What the command line says about the model.
 *
 * @since 0.1.0
 * @category options
 */
export interface ProviderChoice {
  readonly provider: Option.Option<ProviderName>
  readonly model: Option.Option<string>
  /** Another endpoint speaking the provider's API (a proxy, a gateway, a local server). */
  readonly apiUrl: Option.Option<string>
  /** The environment variable that holds the key. Default: the provider's (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`). */
  readonly keyVariable?: string
}

/**
 * The model chosen, for the banner.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChosenModel {
  readonly provider: ProviderName
  readonly model: string
  readonly layer: Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient>
}

const keyVariable: Record<ProviderName, string> = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY" }
const defaultModel: Record<ProviderName, string> = { anthropic: "claude-sonnet-4-5", openai: "gpt-4.1" }

const keyOf = (variable: string) =>
  Config.option(Config.redacted(variable)).pipe(
    Effect.map(Option.filter((key) => Redacted.value(key).length > 0)),
    Effect.orElseSucceed(() => Option.none<Redacted.Redacted>())
  )

const layerOf = (
  provider: ProviderName,
  model: string,
  apiKey: Redacted.Redacted,
  apiUrl: string | undefined
): Effect.Effect<Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient>> =>
  provider === "anthropic"
    ? Effect.promise(async () => {
        const [client, language] = await Promise.all([
          import("@effect/ai-anthropic/AnthropicClient"),
          import("@effect/ai-anthropic/AnthropicLanguageModel")
        ])
        return language.layer({ model }).pipe(Layer.provide(client.layer({ apiKey, apiUrl })))
      })
    : Effect.promise(async () => {
        const [client, language] = await Promise.all([
          import("@effect/ai-openai/OpenAiClient"),
          import("@effect/ai-openai/OpenAiLanguageModel")
        ])
        return language.layer({ model }).pipe(Layer.provide(client.layer({ apiKey, apiUrl })))
      })

/**
 * The model to use, or a `UsageError` naming the key to set.
 *
 * @since 0.1.0
 * @category constructors
 */
export const choose = (choice: ProviderChoice): Effect.Effect<ChosenModel, UsageError> =>
  Effect.gen(function* () {
    const candidates = Option.match(choice.provider, { onNone: () => providers, onSome: (one) => [one] })
    for (const provider of candidates) {
      const key = yield* keyOf(choice.keyVariable ?? keyVariable[provider])
      if (Option.isNone(key)) continue
      const model = Option.getOrElse(choice.model, () => defaultModel[provider])
      const layer = yield* layerOf(provider, model, key.value, Option.getOrUndefined(choice.apiUrl))
      return { provider, model, layer }
    }
    return yield* new UsageError({
      reason: Option.match(choice.provider, {
        onNone: () =>
          "chat needs a language model: set ANTHROPIC_API_KEY (Anthropic) or OPENAI_API_KEY (OpenAI) in the environment",
        onSome: (provider) =>
          `--provider ${provider} needs ${choice.keyVariable ?? keyVariable[provider]} set in the environment`
      })
    })
  })
