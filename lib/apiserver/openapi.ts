/**
 * The smallest OpenAPI v2 document kubectl accepts, protobuf-encoded: field 1 swagger = "2.0", field 2
 * info { title = "reconcilekit", version = "v1" }. kubectl apply/create need /openapi/v2 to answer 200
 * with protobuf; without real schemas it validates nothing client-side (the server validates CRs).
 */
export function openApiV2Protobuf(): Buffer {
  const title = Buffer.from('reconcilekit');
  const version = Buffer.from('v1');
  const info = Buffer.concat([
    Buffer.from([0x0a, title.length]),
    title,
    Buffer.from([0x12, version.length]),
    version,
  ]);
  return Buffer.concat([
    Buffer.from([0x0a, 0x03]),
    Buffer.from('2.0'),
    Buffer.from([0x12, info.length]),
    info,
  ]);
}

/** The same document as JSON, for clients that ask for JSON. */
export function openApiV2Json(): Record<string, unknown> {
  return { swagger: '2.0', info: { title: 'reconcilekit', version: 'v1' }, paths: {}, definitions: {} };
}

/** A minimal /openapi/v3 root (no per-group documents). */
export function openApiV3Root(): Record<string, unknown> {
  return { paths: {} };
}

export const OPENAPI_V2_PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
