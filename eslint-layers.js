// @ts-check
// The layer table of docs/architecture.md, enforced with ESLint's own `no-restricted-imports`: a file may
// import its own area and the areas of the rows above its row, never a row below nor a peer in its own
// row. `lib/apiserver/` imports nothing outside itself, and others reach it only through its index. The
// root entry (`lib/index.ts`) stays light: it loads neither the embedded server nor the CLI.
// Import cycles between files are checked by scripts/check-imports.mjs (also part of `make lint`).

/**
 * Rows from the bottom up. An area is a directory under lib/, or a file-name prefix inside one
 * (`observability/logger`: the logger and the two metric helpers sit below the rest of observability,
 * because the context, the queue and the watch layer log and count).
 */
export const LAYERS = [
  ['errors'],
  ['util'],
  ['observability/logger', 'observability/collect-hook', 'observability/histogram-buffer'],
  ['context'],
  ['kube'],
  ['watch'],
  ['queue'],
  ['debug'],
  ['observability'],
  ['leader'],
  ['sharding'],
  ['kinds'],
  ['status'],
  ['engine'],
  ['host'],
  ['webhooks'],
  ['crud'],
  ['controller'],
  ['informer-controller', 'phases', 'bound', 'declarative'],
  ['operator'],
  ['plan'],
  ['testing'],
  ['cli'],
];

/**
 * Edges the layer table forbids that are still in the code, each with the change that removes it. Keep
 * this empty: an entry is debt, not a rule.
 * @type {Record<string, string[]>}
 */
const PENDING = {};

/** Who may import `lib/apiserver/index.ts` (the embedded server is heavy: never the engine's concern). */
const APISERVER_USERS = ['kinds', 'declarative', 'testing', 'cli'];

/** What the root entry must not load: the embedded server, the CLI and the test helpers. */
const NOT_FROM_ROOT = ['apiserver', 'testing', 'cli'];

const MAX_DEPTH = 6;
const escape = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const dirOf = (/** @type {string} */ area) => area.split('/')[0] ?? area;

/** The file-prefix areas split off a directory (observability/logger, …). */
function prefixesOf(/** @type {string} */ dir) {
  return LAYERS.flat()
    .filter((a) => a.includes('/') && dirOf(a) === dir)
    .map((a) => escape(a.slice(dir.length + 1)));
}

/** Regex source for import paths (relative to lib/) into `area`. */
function areaPattern(/** @type {string} */ area) {
  if (area.includes('/')) return `${escape(area)}[^/]*$`;
  const split = prefixesOf(area);
  return split.length === 0 ? `${escape(area)}(/|$)` : `${escape(area)}/(?!(${split.join('|')}))`;
}

/** Globs of an area's files at one depth below lib/ (1: lib/area/x.ts). */
function areaFiles(/** @type {string} */ area, /** @type {number} */ depth) {
  if (area.includes('/')) return depth === 1 ? [`lib/${area}*.ts`] : [];
  return [`lib/${area}/${'*/'.repeat(depth - 1)}*.ts`];
}

/**
 * The `no-restricted-imports` configs of one area's files at one depth: `banned` areas, the embedded
 * server's internals, and for a file-prefix area the rest of its own directory. A file with pending
 * exceptions gets its own config (later configs win in a flat config).
 */
function restrict(
  /** @type {string} */ area,
  /** @type {number} */ depth,
  /** @type {string[]} */ files,
  /** @type {string[]} */ banned,
) {
  const up = `^(\\.\\./){${String(depth)}}`;
  const patterns = (/** @type {string[]} */ areas) => {
    const list = [];
    if (areas.length > 0) {
      list.push({
        regex: `${up}(${areas.map(areaPattern).join('|')})`,
        message: `lib/${area} sits below (or beside) this area in the layer table (docs/architecture.md): move the shared piece down, or invert the dependency.`,
      });
    }
    list.push(
      APISERVER_USERS.includes(area)
        ? {
            regex: `${up}apiserver/(?!index\\.js$)`,
            message: 'Import the embedded API server only through lib/apiserver/index.ts.',
          }
        : {
            regex: `${up}apiserver(/|$)`,
            message: `Only ${APISERVER_USERS.join(', ')} may import the embedded API server (through its index).`,
          },
    );
    if (area.includes('/')) {
      list.push({
        regex: `^\\./(?!(${prefixesOf(dirOf(area)).join('|')}))`,
        message: `lib/${area}* sits below the rest of lib/${dirOf(area)} in the layer table (docs/architecture.md).`,
      });
    }
    return list;
  };
  const split = area.includes('/') ? [] : LAYERS.flat().filter((a) => a.includes('/') && dirOf(a) === area);
  /** @type {import('eslint').Linter.Config[]} */
  const configs = [
    {
      files,
      ...(split.length === 0 ? {} : { ignores: split.flatMap((a) => areaFiles(a, depth)) }),
      rules: { 'no-restricted-imports': ['error', { patterns: patterns(banned) }] },
    },
  ];
  for (const [file, allowed] of Object.entries(PENDING)) {
    const parts = file.split('/');
    if (parts[1] !== area || parts.length - 2 !== depth) continue;
    configs.push({
      files: [file],
      rules: {
        'no-restricted-imports': [
          'error',
          { patterns: patterns(banned.filter((a) => !allowed.includes(a))) },
        ],
      },
    });
  }
  return configs;
}

/** One `no-restricted-imports` config per area and depth (relative paths climb `depth` times to lib/). */
export function layerConfigs() {
  /** @type {import('eslint').Linter.Config[]} */
  const configs = [];
  for (const [row, areas] of LAYERS.entries()) {
    const above = LAYERS.slice(row + 1).flat();
    for (const area of areas) {
      // Peers in one row do not import each other, except file-prefix areas of one directory.
      const peers = areas.filter((a) => a !== area && dirOf(a) !== dirOf(area));
      for (let depth = 1; depth <= MAX_DEPTH; depth++) {
        const files = areaFiles(area, depth);
        if (files.length === 0) continue;
        configs.push(...restrict(area, depth, files, [...above, ...peers]));
      }
    }
  }
  for (let depth = 1; depth <= MAX_DEPTH; depth++) {
    configs.push({
      files: [`lib/apiserver/${'*/'.repeat(depth - 1)}*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: [
              { name: '@kubernetes/client-node', message: 'The embedded API server stays dependency-light.' },
              { name: 'winston', message: 'The embedded API server stays dependency-light.' },
            ],
            patterns: [
              {
                regex: `^(\\.\\./){${String(depth)}}`,
                message: 'lib/apiserver imports nothing outside itself.',
              },
            ],
          },
        ],
      },
    });
  }
  configs.push({
    files: ['lib/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^\\./(${NOT_FROM_ROOT.map(areaPattern).join('|')})`,
              message: 'The root entry stays light: export this from its subpath entry only.',
            },
          ],
        },
      ],
    },
  });
  return configs;
}
