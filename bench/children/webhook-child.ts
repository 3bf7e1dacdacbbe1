// Child process of workload 16: the Website defaulter and validator served as docs/webhooks.md teaches — an
// `Operator` with the `webhooks` option, the serving certificate read from mounted files (tls.crt, tls.key in
// the directory given), registration left to the deployed manifests (the driver writes them). No controller
// runs; the process's KUBECONFIG names the run's API server.
// Messages out: {type:'ready', url}; in: 'stop'.
import { join } from 'node:path';
import { MountedCertificates, Operator } from 'reconcilekit';
import { AdmissionRejectedError, defaulter, validator, type WebhookHandler } from 'reconcilekit/webhooks';
import { onDriverMessage, reply } from '../lib/child.js';
import { WEBSITE_GROUP, WEBSITE_PLURAL, WEBSITE_VERSION, type Website } from '../lib/website.js';

const certDir = process.argv[2];
const port = Number(process.argv[3]);
if (certDir === undefined || !Number.isInteger(port))
  throw new Error('usage: webhook-child <cert dir> <port>');

const defaultWebsite = defaulter<Website>({
  group: WEBSITE_GROUP,
  versions: [WEBSITE_VERSION],
  resource: WEBSITE_PLURAL,
  default: (_ctx, site) => {
    site.spec = {
      ...site.spec,
      replicas: site.spec?.replicas ?? 1,
      content: site.spec?.content || 'default',
    };
    return site;
  },
});

const validateWebsite = validator<Website>({
  group: WEBSITE_GROUP,
  versions: [WEBSITE_VERSION],
  resource: WEBSITE_PLURAL,
  validateCreate: (_ctx, site) => {
    check(site);
  },
  validateUpdate: (_ctx, _old, site) => {
    check(site);
  },
});

function check(site: Website): undefined {
  const causes: { field: string; message: string }[] = [];
  if ((site.spec?.domain ?? '') === '')
    causes.push({ field: 'spec.domain', message: 'Required value: a Website needs a domain' });
  const replicas = site.spec?.replicas;
  if (replicas !== undefined && replicas > 10) {
    causes.push({
      field: 'spec.replicas',
      message: `Invalid value: ${String(replicas)}: must be at most 10`,
    });
  }
  if (causes.length > 0) throw AdmissionRejectedError.invalid(causes);
  return undefined;
}

const handlers: WebhookHandler[] = [defaultWebsite, validateWebsite];

const operator = new Operator({
  webhooks: {
    handlers,
    host: '127.0.0.1',
    port,
    certificates: new MountedCertificates({
      certFile: join(certDir, 'tls.crt'),
      keyFile: join(certDir, 'tls.key'),
    }),
    register: false,
  },
});
await operator.start();
reply({ type: 'ready', paths: handlers.map((h) => h.path) });

onDriverMessage(async (message) => {
  if (message.type === 'stop') {
    await operator.stop();
    process.exit(0);
  }
});
