/**
 * What explain reports of a process-tier child's protections (types only, so the report reads them without the
 * runners).
 */
import type { LaunchProtections } from '../../boundary/launch/launch.js';

/** The OS-level protections a process-tier child runs under, as reported by `explain`. */
export interface Protections extends LaunchProtections {
  /** Node's permission model: fs reads/writes limited to grants, no child processes, no addons */
  permissionModel: true;
  /**
   * Node's permission model refuses it the network too (Node 25+, no `--allow-net`): false when network is granted, or
   * on an older Node
   */
  netPermission: boolean;
  /** the host polls the child's resident memory and kills it above its budget */
  memoryWatchdog: boolean;
}
