/** The TypeORM CLI's DataSource from the sources (`npm run migration:*`); the build has the same at dist/cli/data-source.js. */
export { default } from './src/cli/data-source';
