export const PACKAGE_NAME = '@kafkats/wire';
