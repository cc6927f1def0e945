/**
 * core/v1 Container and what it holds (ports, environment, mounts, resources, probes, lifecycle
 * hooks, security context), and EphemeralContainer, with upstream's protobuf field numbers.
 * EphemeralContainer embeds EphemeralContainerCommon (Container's fields, under their own names in
 * OpenAPI) as field 1 in protobuf and inline in JSON.
 */
import {
  atomicArray,
  boolean,
  defaulted,
  describe,
  embedded,
  int32,
  int64,
  intOrString,
  keyedArray,
  map,
  named,
  object,
  patchMerge,
  pb,
  quantity,
  string,
  type Schema,
} from './schema.ts';
import { objectFieldSelector, resourceFieldSelector, type LocalObjectReference, type ObjectFieldSelector, type ResourceFieldSelector } from './pod-volume.ts';

export interface ContainerPort {
  name?: string;
  hostPort?: number;
  containerPort?: number;
  protocol?: string;
  hostIP?: string;
}

export interface KeySelector extends LocalObjectReference {
  key?: string;
  optional?: boolean;
}

export interface EnvVarSource {
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  configMapKeyRef?: KeySelector;
  secretKeyRef?: KeySelector;
}

export interface EnvVar {
  name?: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: LocalObjectReference & { optional?: boolean };
  secretRef?: LocalObjectReference & { optional?: boolean };
}

export interface VolumeMount {
  name?: string;
  readOnly?: boolean;
  recursiveReadOnly?: string;
  mountPath?: string;
  subPath?: string;
  mountPropagation?: string;
  subPathExpr?: string;
}

export interface VolumeDevice {
  name?: string;
  devicePath?: string;
}

export type ResourceList = Record<string, string | number>;

export interface ResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
  claims?: { name?: string; request?: string }[];
}

export interface HTTPGetAction {
  path?: string;
  port?: string | number;
  host?: string;
  scheme?: string;
  httpHeaders?: { name?: string; value?: string }[];
}

/** ProbeHandler and LifecycleHandler: one action. */
export interface Handler {
  exec?: { command?: string[] };
  httpGet?: HTTPGetAction;
  tcpSocket?: { port?: string | number; host?: string };
  grpc?: { port?: number; service?: string };
  sleep?: { seconds?: number };
}

export interface Probe extends Handler {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface Capabilities {
  add?: string[];
  drop?: string[];
}

export interface SELinuxOptions {
  user?: string;
  role?: string;
  type?: string;
  level?: string;
}

export interface WindowsSecurityContextOptions {
  gmsaCredentialSpecName?: string;
  gmsaCredentialSpec?: string;
  runAsUserName?: string;
  hostProcess?: boolean;
}

/**
 * `type` is a plain string in Go that the schema requires, yet a client may leave it out (Go then
 * decodes ""): it is optional here so that readers treat its absence as "", which validation rejects.
 */
export interface SeccompProfile {
  type?: string;
  localhostProfile?: string;
}

/** As SeccompProfile: an absent `type` is Go's "". */
export interface AppArmorProfile {
  type?: string;
  localhostProfile?: string;
}

export interface SecurityContext {
  capabilities?: Capabilities;
  privileged?: boolean;
  seLinuxOptions?: SELinuxOptions;
  windowsOptions?: WindowsSecurityContextOptions;
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  procMount?: string;
  seccompProfile?: SeccompProfile;
  appArmorProfile?: AppArmorProfile;
}

export interface Container {
  name?: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  envFrom?: EnvFromSource[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  resizePolicy?: { resourceName?: string; restartPolicy?: string }[];
  restartPolicy?: string;
  volumeMounts?: VolumeMount[];
  volumeDevices?: VolumeDevice[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { postStart?: Handler; preStop?: Handler };
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  imagePullPolicy?: string;
  securityContext?: SecurityContext;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
}

export interface EphemeralContainer extends Container {
  targetContainerName?: string;
}

const coreV1 = (type: string): string => `io.k8s.api.core.v1.${type}`;

const containerPort = (): Schema =>
  named(
    coreV1('ContainerPort'),
    'A network port of a container.',
    object(
      {
        name: pb(1, string('IANA service name of the port, unique within the pod; services may refer to it.')),
        hostPort: pb(2, int32('Port of the node to expose the container port on; none when 0. With hostNetwork it equals containerPort.')),
        containerPort: pb(3, int32('Port number on the pod’s IP address, 1 to 65535.'), 'keepZero'),
        protocol: pb(4, defaulted(string('Protocol of the port: TCP (the default), UDP or SCTP.'), 'TCP')),
        hostIP: pb(5, string('Host IP address to bind the host port to.')),
      },
      ['containerPort'],
    ),
  );

const keySelector = (type: string, what: string): Schema =>
  named(coreV1(type), `Selects a key of a ${what}.`, {
    ...object(
      {
        ...embedded(1, { name: pb(1, { ...string(`Name of the ${what} in the pod’s namespace.`), default: '' }) }),
        key: pb(2, string(`The key of the ${what} to select.`), 'keepZero'),
        optional: pb(3, boolean(`Whether the ${what} or its key may be missing.`), 'optional'),
      },
      ['key'],
    ),
    'x-kubernetes-map-type': 'atomic',
  });

const envVarSource = (): Schema =>
  named(
    coreV1('EnvVarSource'),
    'Where the value of an environment variable comes from; exactly one field is set.',
    object({
      fieldRef: pb(
        1,
        describe(objectFieldSelector(), 'A field of the pod: metadata.name, metadata.namespace, metadata.uid, spec.nodeName, status.podIP...'),
        'optional',
      ),
      resourceFieldRef: pb(2, describe(resourceFieldSelector(), 'A resource limit or request of a container.'), 'optional'),
      configMapKeyRef: pb(3, describe(keySelector('ConfigMapKeySelector', 'ConfigMap'), 'A key of a ConfigMap.'), 'optional'),
      secretKeyRef: pb(4, describe(keySelector('SecretKeySelector', 'Secret'), 'A key of a Secret.'), 'optional'),
    }),
  );

const envVar = (): Schema =>
  named(
    coreV1('EnvVar'),
    'An environment variable of a container.',
    object(
      {
        name: pb(1, string('Name of the variable; any printable ASCII except =.'), 'keepZero'),
        value: pb(2, string('Value, with $(VAR) references to earlier variables expanded; $$(VAR) escapes. Empty by default.')),
        valueFrom: pb(3, describe(envVarSource(), 'Where the value comes from; excludes value.'), 'optional'),
      },
      ['name'],
    ),
  );

const envSource = (type: string, what: string): Schema =>
  named(
    coreV1(type),
    `All keys of a ${what} as environment variables.`,
    object({
      ...embedded(1, { name: pb(1, { ...string(`Name of the ${what} in the pod’s namespace.`), default: '' }) }),
      optional: pb(2, boolean(`Whether the ${what} may be missing.`), 'optional'),
    }),
  );

const envFromSource = (): Schema =>
  named(
    coreV1('EnvFromSource'),
    'A ConfigMap or Secret whose keys become environment variables.',
    object({
      prefix: pb(1, string('Text prepended to every key; must be a C identifier prefix.')),
      configMapRef: pb(2, describe(envSource('ConfigMapEnvSource', 'ConfigMap'), 'The ConfigMap to read.'), 'optional'),
      secretRef: pb(3, describe(envSource('SecretEnvSource', 'Secret'), 'The Secret to read.'), 'optional'),
    }),
  );

const resourceClaim = (): Schema =>
  named(
    coreV1('ResourceClaim'),
    'A resource claim of the pod a container uses.',
    object(
      {
        name: pb(1, string('Name of an entry of spec.resourceClaims.'), 'keepZero'),
        request: pb(2, string('One request of the claim, when not all of it is used.')),
      },
      ['name'],
    ),
  );

/** core/v1 ResourceRequirements (containers and the pod level). */
export const resourceRequirements = (): Schema =>
  named(
    coreV1('ResourceRequirements'),
    'Compute resources a container asks for and may at most use.',
    object({
      limits: pb(1, map(quantity(), 'Most of each resource the container may use.')),
      requests: pb(2, map(quantity(), 'Least of each resource the container needs; defaults to limits when only they are given.')),
      claims: pb(3, describe(keyedArray(resourceClaim(), ['name']), 'Resource claims of the pod the container uses (DynamicResourceAllocation).')),
    }),
  );

const resizePolicy = (): Schema =>
  named(
    coreV1('ContainerResizePolicy'),
    'What a resize of one resource does to a running container.',
    object(
      {
        resourceName: pb(1, string('The resource: cpu or memory.'), 'keepZero'),
        restartPolicy: pb(2, string('NotRequired (resize in place) or RestartContainer.'), 'keepZero'),
      },
      ['resourceName', 'restartPolicy'],
    ),
  );

const volumeMount = (): Schema =>
  named(
    coreV1('VolumeMount'),
    'Where a volume of the pod appears in a container.',
    object(
      {
        name: pb(1, string('Name of a volume of the pod.'), 'keepZero'),
        readOnly: pb(2, boolean('Whether the mount is read-only. Defaults to false.')),
        recursiveReadOnly: pb(7, string('Disabled, IfPossible or Enabled: whether submounts are read-only too.'), 'optional'),
        mountPath: pb(3, string('Path inside the container, which must not contain :.'), 'keepZero'),
        subPath: pb(4, string('Path within the volume to mount instead of its root.')),
        mountPropagation: pb(5, string('None, HostToContainer or Bidirectional.'), 'optional'),
        subPathExpr: pb(6, string('Like subPath, with $(VAR) references to the container’s environment expanded; excludes subPath.')),
      },
      ['name', 'mountPath'],
    ),
  );

const volumeDevice = (): Schema =>
  named(
    coreV1('VolumeDevice'),
    'Where a raw block volume appears in a container.',
    object(
      {
        name: pb(1, string('Name of a persistentVolumeClaim volume of the pod.'), 'keepZero'),
        devicePath: pb(2, string('Path of the device inside the container.'), 'keepZero'),
      },
      ['name', 'devicePath'],
    ),
  );

const execAction = (): Schema =>
  named(
    coreV1('ExecAction'),
    'A command run in the container.',
    object({ command: pb(1, describe(atomicArray(string()), 'Command and arguments, run without a shell; exit status 0 is success.')) }),
  );

const httpGetAction = (): Schema =>
  named(
    coreV1('HTTPGetAction'),
    'An HTTP GET request.',
    object(
      {
        path: pb(1, string('Path to request.')),
        port: pb(2, intOrString('Number or IANA name of the port to request.')),
        host: pb(3, string('Host to connect to; the pod IP when empty.')),
        scheme: pb(4, string('HTTP (the default) or HTTPS.')),
        httpHeaders: pb(
          5,
          describe(
            atomicArray(
              named(
                coreV1('HTTPHeader'),
                'A header of a probe request.',
                object(
                  {
                    name: pb(1, string('Header name; normalized on output.'), 'keepZero'),
                    value: pb(2, string('Header value.'), 'keepZero'),
                  },
                  ['name', 'value'],
                ),
              ),
            ),
            'Headers to send; HTTP allows repeats.',
          ),
        ),
      },
      ['port'],
    ),
  );

const tcpSocketAction = (): Schema =>
  named(
    coreV1('TCPSocketAction'),
    'A TCP connection attempt.',
    object(
      {
        port: pb(1, intOrString('Number or IANA name of the port to connect to.')),
        host: pb(2, string('Host to connect to; the pod IP when empty.')),
      },
      ['port'],
    ),
  );

const actions = (): Record<string, Schema> => ({
  exec: pb(1, describe(execAction(), 'Run a command in the container.'), 'optional'),
  httpGet: pb(2, describe(httpGetAction(), 'Send an HTTP GET request.'), 'optional'),
  tcpSocket: pb(3, describe(tcpSocketAction(), 'Open a TCP connection.'), 'optional'),
});

const probe = (): Schema =>
  named(
    coreV1('Probe'),
    'A check of a container’s health or readiness, with its timing.',
    object({
      ...embedded(1, {
        ...actions(),
        grpc: pb(
          4,
          describe(
            named(
              coreV1('GRPCAction'),
              'A gRPC health check.',
              object(
                {
                  port: pb(1, int32('Port number of the gRPC service, 1 to 65535.'), 'keepZero'),
                  service: pb(2, { ...string('Service name sent in the HealthCheckRequest; the server default when empty.'), default: '' }, 'optional'),
                },
                ['port'],
              ),
            ),
            'Call the gRPC health checking protocol.',
          ),
          'optional',
        ),
      }),
      initialDelaySeconds: pb(2, int32('Seconds after the container started before the first probe.')),
      timeoutSeconds: pb(3, int32('Seconds after which a probe times out. Defaults to 1.')),
      periodSeconds: pb(4, int32('Seconds between probes. Defaults to 10.')),
      successThreshold: pb(5, int32('Consecutive successes after a failure to count as success. Defaults to 1.')),
      failureThreshold: pb(6, int32('Consecutive failures to count as failure. Defaults to 3.')),
      terminationGracePeriodSeconds: pb(7, int64('Grace period when the probe fails, overriding the pod’s.'), 'optional'),
    }),
  );

const lifecycleHandler = (): Schema =>
  named(
    coreV1('LifecycleHandler'),
    'An action run at a point of a container’s life; exactly one field is set.',
    object({
      ...actions(),
      sleep: pb(
        4,
        describe(
          named(coreV1('SleepAction'), 'A pause.', object({ seconds: pb(1, int64('Seconds to sleep.'), 'keepZero') }, ['seconds'])),
          'Sleep for a while.',
        ),
        'optional',
      ),
    }),
  );

const lifecycle = (): Schema =>
  named(
    coreV1('Lifecycle'),
    'Hooks run when a container starts and before it stops.',
    object({
      postStart: pb(1, describe(lifecycleHandler(), 'Run right after the container is created; failure restarts it.'), 'optional'),
      preStop: pb(2, describe(lifecycleHandler(), 'Run before the container is stopped, within the grace period.'), 'optional'),
    }),
  );

export const seLinuxOptions = (): Schema =>
  named(
    coreV1('SELinuxOptions'),
    'SELinux labels of a container.',
    object({
      user: pb(1, string('SELinux user label.')),
      role: pb(2, string('SELinux role label.')),
      type: pb(3, string('SELinux type label.')),
      level: pb(4, string('SELinux level label.')),
    }),
  );

export const windowsOptions = (): Schema =>
  named(
    coreV1('WindowsSecurityContextOptions'),
    'Windows-specific security settings.',
    object({
      gmsaCredentialSpecName: pb(1, string('Name of the GMSACredentialSpec to use.'), 'optional'),
      gmsaCredentialSpec: pb(2, string('Content of the GMSA credential spec.'), 'optional'),
      runAsUserName: pb(3, string('User name to run the entrypoint as.'), 'optional'),
      hostProcess: pb(4, boolean('Whether the container runs as a Windows host process.'), 'optional'),
    }),
  );

const profile = (type: string, description: string, kinds: string): Schema =>
  named(
    coreV1(type),
    description,
    object(
      {
        type: pb(1, string(`Kind of profile: ${kinds}.`), 'keepZero'),
        localhostProfile: pb(2, string('Profile loaded on the node, for type Localhost.'), 'optional'),
      },
      ['type'],
    ),
  );

export const seccompProfile = (): Schema => profile('SeccompProfile', 'A seccomp profile.', 'Localhost, RuntimeDefault or Unconfined');
export const appArmorProfile = (): Schema => profile('AppArmorProfile', 'An AppArmor profile.', 'Localhost, RuntimeDefault or Unconfined');

const securityContext = (): Schema =>
  named(
    coreV1('SecurityContext'),
    'Security settings of a container, overriding the pod’s.',
    object({
      capabilities: pb(
        1,
        describe(
          named(
            coreV1('Capabilities'),
            'Linux capabilities to add and drop.',
            object({
              add: pb(1, describe(atomicArray(string()), 'Capabilities to add.')),
              drop: pb(2, describe(atomicArray(string()), 'Capabilities to drop.')),
            }),
          ),
          'Capabilities to add to or drop from the runtime’s default set.',
        ),
        'optional',
      ),
      privileged: pb(2, boolean('Whether the container runs privileged, like a root process on the host.'), 'optional'),
      seLinuxOptions: pb(3, describe(seLinuxOptions(), 'SELinux context of the container.'), 'optional'),
      windowsOptions: pb(10, describe(windowsOptions(), 'Windows-specific settings.'), 'optional'),
      runAsUser: pb(4, int64('UID to run the entrypoint as.'), 'optional'),
      runAsGroup: pb(8, int64('GID to run the entrypoint as.'), 'optional'),
      runAsNonRoot: pb(5, boolean('Whether the container must run as a non-root user.'), 'optional'),
      readOnlyRootFilesystem: pb(6, boolean('Whether the root filesystem is read-only.'), 'optional'),
      allowPrivilegeEscalation: pb(7, boolean('Whether a process may gain more privileges than its parent.'), 'optional'),
      procMount: pb(9, string('Default or Unmasked /proc mount.'), 'optional'),
      seccompProfile: pb(11, describe(seccompProfile(), 'Seccomp profile of the container.'), 'optional'),
      appArmorProfile: pb(12, describe(appArmorProfile(), 'AppArmor profile of the container.'), 'optional'),
    }),
  );

/** Container's fields, shared by EphemeralContainerCommon (which embeds them under field 1). */
function containerFields(): Record<string, Schema> {
  const probeField = (field: number, description: string): Schema => pb(field, describe(probe(), description), 'optional');
  return {
    name: pb(1, string('Name of the container, a DNS label unique within the pod.'), 'keepZero'),
    image: pb(2, string('Container image name.')),
    command: pb(3, describe(atomicArray(string()), 'Entrypoint, instead of the image’s ENTRYPOINT; $(VAR) references are expanded.')),
    args: pb(4, describe(atomicArray(string()), 'Arguments, instead of the image’s CMD; $(VAR) references are expanded.')),
    workingDir: pb(5, string('Working directory; the image’s when empty.')),
    ports: pb(
      6,
      describe(
        patchMerge(keyedArray(containerPort(), ['containerPort', 'protocol']), 'containerPort'),
        'Ports the container exposes; informational, except hostPort.',
      ),
    ),
    envFrom: pb(19, describe(atomicArray(envFromSource()), 'ConfigMaps and Secrets whose keys become environment variables.')),
    env: pb(7, describe(patchMerge(keyedArray(envVar(), ['name']), 'name'), 'Environment variables.')),
    resources: pb(8, describe(resourceRequirements(), 'Compute resources the container needs and may use.')),
    resizePolicy: pb(23, describe(atomicArray(resizePolicy()), 'How resources of the running container are resized.')),
    restartPolicy: pb(24, string('Always makes an init container a sidecar that runs alongside the pod.'), 'optional'),
    volumeMounts: pb(9, describe(patchMerge(keyedArray(volumeMount(), ['mountPath']), 'mountPath'), 'Volumes of the pod mounted into the container.')),
    volumeDevices: pb(21, describe(patchMerge(keyedArray(volumeDevice(), ['devicePath']), 'devicePath'), 'Block volumes of the pod exposed as devices.')),
    livenessProbe: probeField(10, 'Restarts the container when it fails.'),
    readinessProbe: probeField(11, 'Removes the pod from service endpoints while it fails.'),
    startupProbe: probeField(22, 'Holds back the other probes until it succeeds.'),
    lifecycle: pb(12, describe(lifecycle(), 'Hooks run when the container starts and before it stops.'), 'optional'),
    terminationMessagePath: pb(13, string('File the container writes its termination message to. Defaults to /dev/termination-log.')),
    terminationMessagePolicy: pb(20, string('File (the default) or FallbackToLogsOnError.')),
    imagePullPolicy: pb(14, string('Always, Never or IfNotPresent; Always for :latest or no tag, else IfNotPresent.')),
    securityContext: pb(15, describe(securityContext(), 'Security settings of the container.'), 'optional'),
    stdin: pb(16, boolean('Whether the container has a stdin buffer.')),
    stdinOnce: pb(17, boolean('Whether stdin closes after the first attach session.')),
    tty: pb(18, boolean('Whether the container gets a TTY.')),
  };
}

export const containerSchema = (): Schema => named(coreV1('Container'), 'A container of a pod.', object(containerFields(), ['name']));

export const ephemeralContainerSchema = (): Schema =>
  named(
    coreV1('EphemeralContainer'),
    'A temporary container added to a running pod for debugging; never restarted, no ports nor probes.',
    object(
      {
        ...embedded(1, containerFields()),
        targetContainerName: pb(2, string('Container whose namespaces (IPC, PID...) the ephemeral container joins.')),
      },
      ['name'],
    ),
  );
