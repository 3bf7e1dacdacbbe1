import { createHash } from 'node:crypto';
import type { Website } from './website.js';

/** How a resource set renders pages: version 1 is plain, version 2 adds a layout and paragraphs. */
export type PageRenderer = (site: Website) => string;

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Version 1: a title and the content in one paragraph. */
export const renderPageV1: PageRenderer = (site) => {
  const title = escapeHtml(site.spec.title);
  return [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${title}</title></head>`,
    `<body><h1>${title}</h1><p>${escapeHtml(site.spec.content)}</p></body></html>`,
    '',
  ].join('\n');
};

/** Version 2: a header, one paragraph per blank-line-separated block, and a footer naming the version. */
export const renderPageV2: PageRenderer = (site) => {
  const title = escapeHtml(site.spec.title);
  const paragraphs = site.spec.content
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => `    <p>${escapeHtml(block)}</p>`);
  return [
    '<!doctype html>',
    '<html lang="en">',
    `  <head><meta charset="utf-8"><title>${title}</title></head>`,
    '  <body>',
    `    <header><h1>${title}</h1></header>`,
    '    <main>',
    ...paragraphs.map((p) => `  ${p}`),
    '    </main>',
    '    <footer>rendered by website-operator, resource set v2</footer>',
    '  </body>',
    '</html>',
    '',
  ].join('\n');
};

/** A short, stable digest of a page; put on the pod template so a new page rolls the pods. */
export function pageChecksum(page: string): string {
  return createHash('sha256').update(page).digest('hex').slice(0, 16);
}
