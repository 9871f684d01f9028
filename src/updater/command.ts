// `cabinet update apply|recover --config /etc/cabinet/cabinet.yaml`: the privileged installer's
// command (src/updater/installer.ts), run as root by cabinet-updater.service. Loads the settings
// and the installer only: no server, no database.
import { ConfigError, loadConfig, parseFlags } from '../config.js';

const USAGE = `usage: cabinet update apply [--config FILE]     install a handed-over update (as root; cabinet-updater.service)
       cabinet update recover [--config FILE]   finish an update a power cut interrupted (as root; at boot)`;

export async function updateCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'apply' && sub !== 'recover') throw new ConfigError(USAGE);
  // It runs dpkg and controls the service: only root may, and only root-owned files are trusted.
  if (process.getuid?.() !== 0) throw new ConfigError(`cabinet update ${sub} runs as root (it installs packages); systemd starts it as cabinet-updater.service`);
  const { values } = parseFlags(rest);
  const config = loadConfig(values);
  const { Installer } = await import('./installer.js');
  const installer = new Installer({ config, configFile: values.config ?? process.env.CABINET_CONFIG });
  const outcome = sub === 'apply' ? await installer.apply() : await installer.recover();
  process.stdout.write(`cabinet update ${sub}: ${outcome}\n`);
  return 0;
}
