#!/usr/bin/env node
// The service-cli executable: registers tsx so that Node runs the TypeScript sources directly.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
