#!/usr/bin/env node
// The built CLI (npm run build compiles src/ to dist/).
import "../dist/bin.js"
