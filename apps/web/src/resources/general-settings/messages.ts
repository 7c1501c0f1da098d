export const en = {
  general_settings: {
    title: 'Project settings',
    tabs: { apple_wallet: 'Apple Wallet', markers: 'Markers' },
    saved: 'Done',
    apple_wallet: {
      intro:
        'A QR identifier can be added to Apple Wallet. Its pass looks as set here and is signed with the project’s Pass Type ID certificate, issued by Apple for your developer account.',
      look: 'How the pass looks',
      signing: 'Signing',
      signing_hint:
        'From your Apple developer account: the Pass Type ID, the Team ID, the pass certificate and its private key (PEM), and Apple’s WWDR intermediate certificate.',
      developer_name: 'Name on the pass',
      developer_name_color: 'Label colour',
      background_color: 'Background colour',
      font_color: 'Text colour',
      barcode_alt_text: 'Text under the code',
      backfields: 'Back of the pass',
      backfield_name: 'Label',
      backfield_value: 'Text',
      pass_type_identifier: 'Pass Type ID (pass.…)',
      team_identifier: 'Team ID',
      certificate: 'Pass certificate (PEM)',
      wwdr_certificate: 'WWDR certificate (PEM)',
      private_key: 'Private key (PEM)',
      private_key_set: 'A private key is set: paste another one only to replace it',
      private_key_passphrase: 'Private key passphrase',
      passphrase_kept: 'Leave empty to keep the current passphrase',
      configured: 'Passes can be signed',
      not_configured: 'Passes cannot be signed yet: the signing settings are incomplete',
      read_only: 'You may view these settings but not change them.',
    },
  },
};

export const ru: typeof en = {
  general_settings: {
    title: 'Настройки проекта',
    tabs: { apple_wallet: 'Apple Wallet', markers: 'Метки' },
    saved: 'Готово',
    apple_wallet: {
      intro:
        'QR-идентификатор можно добавить в Apple Wallet. Пропуск выглядит так, как задано здесь, и подписывается сертификатом Pass Type ID проекта, выданным Apple для вашей учётной записи разработчика.',
      look: 'Внешний вид пропуска',
      signing: 'Подпись',
      signing_hint:
        'Из учётной записи разработчика Apple: Pass Type ID, Team ID, сертификат пропуска и его закрытый ключ (PEM), а также промежуточный сертификат Apple WWDR.',
      developer_name: 'Название на пропуске',
      developer_name_color: 'Цвет подписей',
      background_color: 'Цвет фона',
      font_color: 'Цвет текста',
      barcode_alt_text: 'Текст под кодом',
      backfields: 'Обратная сторона пропуска',
      backfield_name: 'Подпись',
      backfield_value: 'Текст',
      pass_type_identifier: 'Pass Type ID (pass.…)',
      team_identifier: 'Team ID',
      certificate: 'Сертификат пропуска (PEM)',
      wwdr_certificate: 'Сертификат WWDR (PEM)',
      private_key: 'Закрытый ключ (PEM)',
      private_key_set: 'Закрытый ключ задан: вставьте другой, только чтобы заменить его',
      private_key_passphrase: 'Парольная фраза ключа',
      passphrase_kept: 'Оставьте пустым, чтобы сохранить текущую фразу',
      configured: 'Пропуска можно подписывать',
      not_configured: 'Пропуска пока нельзя подписать: настройки подписи неполные',
      read_only: 'Вы можете просматривать эти настройки, но не изменять их.',
    },
  },
};
