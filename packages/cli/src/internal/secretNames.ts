/**
 * Names that hold secrets, wherever the CLI meets a name and a value: a recorded message's members
 * (`apiKey`, `client_secret`), an environment variable (`GITHUB_TOKEN`), an HTTP header
 * (`Authorization`, `X-Api-Key`). `progressToken` is no secret.
 */
const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|authorization|cookie|credential|session[-_]?id/i

/** Whether a value under `name` is a secret. */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name) && name !== "progressToken"
