import { StrictMode } from "react"
import { createRoot } from "react-dom/client"
import { App } from "./App.js"
import { start } from "./store.js"

start()
const root = document.getElementById("root")
if (root !== null)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>
  )
