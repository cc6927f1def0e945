/**
 * What the agent reports about the machine it runs on, read from the host as the kubelet reads it
 * through cAdvisor and the OS: CPUs, memory, the root directory's file system, process IDs, the
 * machine and boot IDs, kernel and OS image, addresses.
 *
 * Static facts are read once; usage (free memory, free disk, running processes) is read at most
 * once a second however many agents ask (the simulation runs thousands in one process). Files
 * that cannot be read (a container without /sys, a non-Linux host) leave their field empty rather
 * than failing the agent.
 */
import { readFileSync, readdirSync, statfsSync } from 'node:fs';
import { arch, cpus, freemem, networkInterfaces, platform, release, totalmem } from 'node:os';

export interface HostFacts {
  cpuCount: number;
  memoryBytes: number;
  /** The file system holding the agent's root directory. */
  diskBytes: number;
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  /** Go's GOOS and GOARCH names. */
  operatingSystem: string;
  architecture: string;
  /** The first non-loopback IPv4 address (then IPv6), or 127.0.0.1. */
  defaultAddress: string;
}

export interface HostUsage {
  memoryAvailableBytes: number;
  diskAvailableBytes: number;
  pidMax: number;
  processes: number;
}

export interface Host {
  facts(): HostFacts;
  usage(): HostUsage;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function osImage(): string {
  const text = readText('/etc/os-release');
  const pretty = /^PRETTY_NAME=(.*)$/m.exec(text)?.[1] ?? '';
  return pretty.replace(/^"(.*)"$/, '$1') || 'Unknown';
}

const goArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };

function defaultAddress(): string {
  const all = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  const external = all.filter((a) => !a.internal);
  return external.find((a) => a.family === 'IPv4')?.address ?? external.find((a) => a.family === 'IPv6')?.address ?? '127.0.0.1';
}

/** /proc/meminfo's MemAvailable (what cAdvisor's working-set arithmetic approximates), else free memory. */
function memoryAvailable(): number {
  const kib = /^MemAvailable:\s+(\d+) kB$/m.exec(readText('/proc/meminfo'))?.[1];
  return kib !== undefined ? Number(kib) * 1024 : freemem();
}

function processCount(): number {
  try {
    return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
  } catch {
    return 0;
  }
}

/** The host as the OS reports it, for agents whose root directory is `rootDir`. */
export class OsHost implements Host {
  private readonly staticFacts: HostFacts;
  private cachedUsage: { at: number; usage: HostUsage } | undefined;

  constructor(private readonly rootDir: string) {
    const fs = this.statfs();
    this.staticFacts = {
      cpuCount: cpus().length,
      memoryBytes: totalmem(),
      diskBytes: fs ? fs.blocks * fs.bsize : 0,
      machineID: readText('/etc/machine-id') || readText('/var/lib/dbus/machine-id'),
      systemUUID: readText('/sys/class/dmi/id/product_uuid').toLowerCase(),
      bootID: readText('/proc/sys/kernel/random/boot_id'),
      kernelVersion: release(),
      osImage: osImage(),
      operatingSystem: platform() === 'win32' ? 'windows' : platform(),
      architecture: goArch[arch()] ?? arch(),
      defaultAddress: defaultAddress(),
    };
  }

  facts(): HostFacts {
    return this.staticFacts;
  }

  usage(): HostUsage {
    const now = Date.now();
    if (this.cachedUsage && now - this.cachedUsage.at < 1_000) return this.cachedUsage.usage;
    const fs = this.statfs();
    const usage: HostUsage = {
      memoryAvailableBytes: memoryAvailable(),
      diskAvailableBytes: fs ? fs.bavail * fs.bsize : 0,
      pidMax: Number(readText('/proc/sys/kernel/pid_max')) || 0,
      processes: processCount(),
    };
    this.cachedUsage = { at: now, usage };
    return usage;
  }

  private statfs(): { blocks: number; bsize: number; bavail: number } | undefined {
    try {
      return statfsSync(this.rootDir);
    } catch {
      try {
        return statfsSync('/');
      } catch {
        return undefined;
      }
    }
  }
}
