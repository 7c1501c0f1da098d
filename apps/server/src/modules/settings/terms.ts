/** The built-in terms and conditions, per locale: served while the project has no text of its own. */
export const DEFAULT_TERMS: Record<'en' | 'ru', string> = {
  en: `<h1>Terms and conditions</h1>
<p>Atrium administers access to a building: doors, lifts, intercoms and telephony. By using it you agree to use it only for the buildings you are entitled to manage, to keep your credentials secret, and to respect the privacy of the residents whose data you see.</p>
<p>Every change you make is recorded in the audit log with your name, the time and your address.</p>
<p>The operator of this installation is responsible for the personal data it holds and answers residents' requests to see or erase their data.</p>`,
  ru: `<h1>Условия использования</h1>
<p>Atrium управляет доступом в здание: дверями, лифтами, домофонами и телефонией. Пользуясь им, вы соглашаетесь управлять только теми зданиями, на которые у вас есть право, хранить свои учётные данные в тайне и уважать частную жизнь жильцов, чьи данные вы видите.</p>
<p>Каждое ваше изменение записывается в журнал аудита с вашим именем, временем и адресом.</p>
<p>Оператор этой установки отвечает за хранимые персональные данные и отвечает на запросы жильцов об их просмотре или удалении.</p>`,
};
