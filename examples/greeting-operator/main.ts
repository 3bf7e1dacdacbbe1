// The smallest useful operator: every Greeting gets a ConfigMap with its message (README.md).
import { framework } from './operator.js';

process.once('SIGTERM', () => void framework.stop());
await framework.start();
