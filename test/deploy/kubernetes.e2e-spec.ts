import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { toAppConfig } from '../../src/config/app.config';
import { toAuthConfig } from '../../src/config/auth.config';
import { validateEnvironment } from '../../src/config/environment';

type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [field: string]: unknown };
type Container = {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  readinessProbe?: { httpGet: { path: string }; periodSeconds: number; failureThreshold: number };
  livenessProbe?: { httpGet: { path: string } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
};
type PodSpec = {
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
  containers: Container[];
};

/** The API schemas of a current Kubernetes release (kubernetes-models), by apiVersion and kind. */
async function validatorFor(manifest: Manifest): Promise<(value: Manifest) => void> {
  const group = manifest.apiVersion.includes('/') ? manifest.apiVersion : `core/${manifest.apiVersion}`;
  const path = group.startsWith('core/') ? `kubernetes-models/${group.slice(5)}` : `kubernetes-models/${group}`;
  const models = (await import(path)) as Record<string, new (value: Manifest) => { validate(): void }>;
  const Model = models[manifest.kind];
  if (!Model) throw new Error(`No schema for ${manifest.apiVersion} ${manifest.kind}`);
  return (value) => new Model(value).validate();
}

/**
 * deploy/kubernetes as `kubectl apply -k` renders it, checked offline: every manifest against the Kubernetes API
 * schemas, and the rules of docs/API.md §10 and §15 that only the manifests can break (probes, the drain's timing,
 * the pod's security, what the Service exposes, the configuration the service starts with).
 */
describe('the Kubernetes manifests', () => {
  let manifests: Manifest[];
  const byKind = (kind: string) => manifests.find((manifest) => manifest.kind === kind) as Manifest;
  const podOf = (kind: 'Deployment' | 'Job') => (byKind(kind).spec as { template: { spec: PodSpec } }).template.spec;
  const cronJobPods = () =>
    manifests
      .filter(({ kind }) => kind === 'CronJob')
      .map((manifest) => (manifest.spec as { jobTemplate: { spec: { template: { spec: PodSpec } } } }).jobTemplate);

  beforeAll(() => {
    const rendered = spawnSync('kubectl', ['kustomize', 'deploy/kubernetes'], { encoding: 'utf8', timeout: 60_000 });
    if (rendered.error) {
      throw new Error(
        `kubectl could not run (${rendered.error.message}); install it (Debian: sudo apt-get install -y kubernetes-client)`,
      );
    }
    expect(rendered.stderr.replace(/^.*deprecated.*$/gim, '').trim()).toBe('');
    manifests = parseAllDocuments(rendered.stdout).map((document) => document.toJSON() as Manifest);
  });

  it('renders a Deployment, a Service, a PodDisruptionBudget, a HorizontalPodAutoscaler, a Job, CronJobs and a ConfigMap', () => {
    expect(manifests.map((manifest) => manifest.kind).sort()).toEqual([
      'ConfigMap',
      'CronJob',
      'CronJob',
      'Deployment',
      'HorizontalPodAutoscaler',
      'Job',
      'PodDisruptionBudget',
      'Service',
    ]);
  });

  it('validates every manifest against the Kubernetes API schemas', async () => {
    for (const manifest of manifests) {
      const validate = await validatorFor(manifest);
      expect(() => validate(manifest)).not.toThrow();
    }
    // The check can fail: a wrong field type is refused.
    const broken = { ...byKind('Service'), spec: { ports: [{ port: 'eighty' }] } };
    const validate = await validatorFor(broken);
    expect(() => validate(broken)).toThrow();
  });

  it('probes readiness and liveness, and drains before the kubelet kills', () => {
    const pod = podOf('Deployment');
    const [container] = pod.containers;
    const config = byKind('ConfigMap').data as Record<string, string>;
    expect(container.readinessProbe?.httpGet.path).toBe('/health/ready');
    expect(container.livenessProbe?.httpGet.path).toBe('/health/live');
    const { periodSeconds, failureThreshold } = container.readinessProbe ?? { periodSeconds: 0, failureThreshold: 0 };
    const delayMs = Number(config.SHUTDOWN_DELAY_MS);
    expect(delayMs).toBeGreaterThan(periodSeconds * failureThreshold * 1000);
    expect((pod.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(
      delayMs + Number(config.SHUTDOWN_GRACE_MS),
    );
  });

  it('runs every pod as a non-root user with a read-only root, no privileges and the default seccomp profile', () => {
    const pods = [podOf('Deployment'), podOf('Job'), ...cronJobPods().map(({ spec }) => spec.template.spec)];
    expect(pods).toHaveLength(4);
    for (const pod of pods) {
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const container of pod.containers) {
        expect(container.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(container.resources?.requests).toBeDefined();
        expect(container.resources?.limits?.memory).toBeDefined();
        expect(container.envFrom).toEqual([
          { configMapRef: { name: 'orders-service' } },
          { secretRef: { name: 'orders-service' } },
        ]);
      }
    }
  });

  it('exposes the API port through the Service, and never the metrics port', () => {
    const [container] = podOf('Deployment').containers;
    const ports = (byKind('Service').spec as { ports: Array<{ targetPort: string | number }> }).ports;
    expect(ports.map(({ targetPort }) => targetPort)).toEqual(['http']);
    expect(container.ports?.find(({ name }) => name === 'http')?.containerPort).toBe(3000);
    expect(container.ports?.find(({ name }) => name === 'metrics')?.containerPort).toBe(9464);
  });

  it('migrates with the same image, through the compiled migration command, without TypeScript tooling', () => {
    const [deployment, job] = [podOf('Deployment').containers[0], podOf('Job').containers[0]];
    expect(job.image).toBe(deployment.image);
    expect(job.command).toEqual(['node', 'dist/cli/migrate.js']);
  });

  it('configures a service that starts: the ConfigMap with the Secret’s keys passes the start-up checks', () => {
    const config = byKind('ConfigMap').data as Record<string, string>;
    const secret = {
      JWT_SECRET: 'a-secret-of-the-deployment-0123456789',
      PAGE_LINK_SECRET: 'another-secret-of-the-deployment-0123',
      ACCESS_RECORD_SEAL_KEY: randomBytes(32).toString('base64'),
      DB_PASSWORD: 'a-password',
    };
    const env = validateEnvironment({ ...config, ...secret });
    expect(env.NODE_ENV).toBe('production');
    expect(toAuthConfig(env).issuer).toBe(config.JWT_ISSUER);
    expect(toAppConfig(env).trustProxy?.('10.1.2.3', 0)).toBe(true);
  });
});
