export { shellWord } from '../core/shell.js';
