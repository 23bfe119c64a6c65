/**
 * Skills (the skills extension, `io.modelcontextprotocol/skills`): a server's skills as listed,
 * and one loaded (its `SKILL.md` verified against the listing by the host) with its instructions
 * drawn as sanitized markdown and its files, each readable.
 */
import { useCallback, useEffect, useId, useState } from "react"
import * as Api from "../api.js"
import { isObject } from "../mcp.js"
import { Markdown } from "./Markdown.js"
import { ReadResult } from "./ResultView.js"

export const SkillsExtension = "io.modelcontextprotocol/skills"

/** Whether the server declares the skills extension (`capabilities.extensions`). */
export const declaresSkills = (capabilities: unknown) =>
  isObject(capabilities) && isObject(capabilities.extensions) && SkillsExtension in capabilities.extensions

type Listed =
  | { readonly status: "loading" }
  | { readonly status: "loaded"; readonly skills: ReadonlyArray<Api.SkillInfo> }
  | { readonly status: "error"; readonly error: string }

type Opened =
  | { readonly status: "loading"; readonly uri: string }
  | { readonly status: "loaded"; readonly uri: string; readonly skill: Api.Loaded }
  | { readonly status: "error"; readonly uri: string; readonly error: string }

export function SkillsPane(props: { readonly server: string }) {
  const { server } = props
  const [listed, setListed] = useState<Listed>({ status: "loading" })
  const [opened, setOpened] = useState<Opened | undefined>(undefined)
  const id = useId().replace(/:/g, "")

  const list = useCallback(() => {
    setListed({ status: "loading" })
    Api.getSkills(server).then(
      (r) => setListed({ status: "loaded", skills: r.skills }),
      (e: unknown) => setListed({ status: "error", error: Api.errorMessage(e) })
    )
  }, [server])
  useEffect(list, [list])

  const load = (skill: Api.SkillInfo) => {
    setOpened({ status: "loading", uri: skill.uri })
    Api.loadSkill(server, skill.uri).then(
      (loaded) => setOpened({ status: "loaded", uri: skill.uri, skill: loaded }),
      (e: unknown) => setOpened({ status: "error", uri: skill.uri, error: Api.errorMessage(e) })
    )
  }

  const skills = listed.status === "loaded" ? listed.skills : []
  return (
    <div className="master-detail">
      <div className="master">
        <div className="toolbar">
          <button type="button" className="small" onClick={list} disabled={listed.status === "loading"}>
            Refresh
          </button>
          <span className="muted" aria-live="polite">
            {listed.status === "loading" ? "Reading…" : `${skills.length} ${skills.length === 1 ? "skill" : "skills"}`}
          </span>
        </div>
        {listed.status === "error" ? (
          <p className="error-text pad" role="alert">
            The skills could not be read: {listed.error}
          </p>
        ) : null}
        <ul className="item-list" aria-label="Skill list">
          {skills.map((s, i) => (
            <li key={s.uri} className={opened?.uri === s.uri ? "item selected" : "item"}>
              <span className="item-name" id={`${id}-n${i}`}>
                {s.name}
              </span>
              {s.description !== "" ? <span className="item-desc">{s.description}</span> : null}
              <code className="item-desc">{s.path}</code>
              <div className="button-row">
                <button
                  type="button"
                  className="small"
                  aria-describedby={`${id}-n${i}`}
                  aria-current={opened?.uri === s.uri ? "true" : undefined}
                  disabled={opened?.status === "loading" && opened.uri === s.uri}
                  onClick={() => load(s)}
                >
                  Load
                </button>
              </div>
            </li>
          ))}
          {listed.status === "loaded" && skills.length === 0 ? <li className="muted empty">No skills.</li> : null}
        </ul>
      </div>
      <div className="detail">
        {opened === undefined ? (
          <p className="muted">Load a skill to see its instructions and files.</p>
        ) : opened.status === "loading" ? (
          <p className="muted" role="status">
            Loading…
          </p>
        ) : opened.status === "error" ? (
          <p className="error-text pre-wrap" role="alert">
            The skill could not be loaded: {opened.error}
          </p>
        ) : (
          <LoadedSkillView key={opened.uri} server={server} skill={opened.skill} />
        )}
      </div>
    </div>
  )
}

/** A file's path within the skill, resolved against its `SKILL.md`'s address. */
const fileUri = (skillUri: string, path: string): string => {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) return path
  try {
    return new URL(path, skillUri).href
  } catch {
    return path
  }
}

function LoadedSkillView(props: { readonly server: string; readonly skill: Api.Loaded }) {
  const { skill, server } = props
  const id = useId().replace(/:/g, "")
  const [file, setFile] = useState<
    | { readonly uri: string; readonly status: "loading" }
    | { readonly uri: string; readonly status: "loaded"; readonly result: unknown }
    | { readonly uri: string; readonly status: "error"; readonly error: string }
    | undefined
  >(undefined)
  const read = (path: string) => {
    const uri = fileUri(skill.uri, path)
    setFile({ uri, status: "loading" })
    Api.readResource(server, uri).then(
      (result) => setFile({ uri, status: "loaded", result }),
      (e: unknown) => setFile({ uri, status: "error", error: Api.errorMessage(e) })
    )
  }
  return (
    <article className="skill" aria-labelledby={`${id}-h`}>
      <header className="detail-head">
        <h3 id={`${id}-h`}>{skill.name}</h3>
        <code className="muted">{skill.uri}</code>
      </header>
      <section aria-label="Instructions" className="skill-instructions">
        <Markdown text={skill.instructions} />
      </section>
      <section aria-labelledby={`${id}-f`}>
        <h4 id={`${id}-f`}>Files</h4>
        {skill.files.length === 0 ? (
          <p className="muted">No other files.</p>
        ) : (
          <ul className="skill-files" aria-label="Skill files">
            {skill.files.map((f) => (
              <li key={f}>
                <code>{f}</code>{" "}
                <button
                  type="button"
                  className="small"
                  aria-label={`Read ${f}`}
                  disabled={file?.uri === fileUri(skill.uri, f) && file.status === "loading"}
                  onClick={() => read(f)}
                >
                  Read
                </button>
              </li>
            ))}
          </ul>
        )}
        {file === undefined ? null : (
          <section aria-label={`File ${file.uri}`} className="call">
            {file.status === "loading" ? (
              <p className="muted">Reading…</p>
            ) : file.status === "error" ? (
              <p className="error-text">{file.error}</p>
            ) : (
              <ReadResult result={file.result} />
            )}
          </section>
        )}
      </section>
    </article>
  )
}
