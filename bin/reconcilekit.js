#!/usr/bin/env node
// Thin launcher: the command line lives in dist/lib/cli (run `make build` first).
import { main } from '../dist/lib/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
