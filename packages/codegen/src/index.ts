export const PACKAGE_NAME = '@kafkats/codegen';
