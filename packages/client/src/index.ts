export const PACKAGE_NAME = '@kafkats/client';
