/**
 * The commands a hint gives to copy a container image into a mirror (a module of its own: a
 * render loads it with the pins, not the registry client).
 */
import { DOCKER_HUB, parseImage } from '../../core/image-reference.js';
import { isLoopbackHost } from '../base/http.js';

/** Whether the registry an image names speaks plain HTTP, as Docker treats one on a loopback address. */
function plainHttp(image: string): boolean {
  const parsed = parseImage(image);
  return parsed.ok && parsed.reference.domain !== DOCKER_HUB && isLoopbackHost(parsed.reference.domain.replace(/:\d+$/, ''));
}

/**
 * The commands that copy an image with every architecture, as a hint gives them to run:
 * `skopeo copy --all` (told a registry on a loopback address speaks plain HTTP, and to keep the
 * digest a source names, which crane always keeps) or `crane copy`, which knows a loopback one.
 */
export function imageCopyCommands(written: string, destination: string): string {
  const parsed = parseImage(written);
  // a digest names the content: skopeo refuses a reference with a tag too
  const source = parsed.ok && parsed.reference.digest && parsed.reference.tag ? written.replace(`:${parsed.reference.tag}@`, '@') : written;
  const options = [
    '--all',
    ...(parsed.ok && parsed.reference.digest ? ['--preserve-digests'] : []),
    ...(plainHttp(source) ? ['--src-tls-verify=false'] : []),
    ...(plainHttp(destination) ? ['--dest-tls-verify=false'] : []),
  ];
  return `\`skopeo copy ${options.join(' ')} docker://${source} docker://${destination}\` or \`crane copy ${source} ${destination}\``;
}
